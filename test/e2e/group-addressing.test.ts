import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MockSignalNetwork } from '@parley-example/channel-signal/testing';
import { startTestServer, type TestServer } from '../support/test-server.js';

const SHOP = '0b6f3f6e-4d57-4c1e-9a51-6d8d4a1c2e01';
const GROUP = 'group.c2hvcC1jdXN0b21lcnMtZ3JvdXA=';

/**
 * Group ids in paths (`/{key}/groups/{groupJid}`) follow the main channel's addressing
 * (`ChannelAddressing.groups`), not WhatsApp's JIDs: a server whose only main channel is the Signal
 * example takes Signal group ids there and refuses WhatsApp group JIDs.
 */
describe('group ids in paths come from the main channel\'s addressing (examples/channel-signal)', () => {
  let network: MockSignalNetwork;
  let t: TestServer;
  let key: string;

  before(async () => {
    network = await MockSignalNetwork.start();
    network.addAccount(SHOP, 'Shop');
    network.addGroup(GROUP);
    t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/webhook-native' },
        { package: fileURLToPath(import.meta.resolve('@parley-example/channel-signal')), options: { apiBaseUrl: network.url } },
      ],
      config: { defaultChannel: 'signal' },
    });
    const created = await t.admin('POST', '/admin/instances', { channel: 'signal', name: 'signal-groups', options: { account: SHOP } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    key = created.body.data.key;
    const connected = await t.request('POST', `/${key}/instance`);
    assert.equal(connected.status, 200, JSON.stringify(connected.body));
  });
  after(async () => {
    await t?.stop();
    await network?.close();
  });

  it('states the Signal group-id rule in /openapi.json', async () => {
    const { body: openapi } = await t.request('GET', '/openapi.json');
    const param = (openapi.paths['/{key}/groups/{groupJid}'].get.parameters as { name: string; schema: Record<string, unknown> }[]).find((p) => p.name === 'groupJid');
    assert.deepEqual(param?.schema, {
      type: 'string', pattern: '^group\\.[A-Za-z0-9+/]{16,}={0,2}$', examples: ['group.aGVsbG8gc2lnbmFsIGdyb3Vw'],
      description: 'A Signal group id (`group.` followed by the base64 group id).',
    });
  });

  it('takes a Signal group id (the channel then answers it has no groups) and refuses a WhatsApp group JID with a 400 naming the parameter', async () => {
    const signal = await t.request('GET', `/${key}/groups/${encodeURIComponent(GROUP)}`);
    assert.equal(signal.status, 422, JSON.stringify(signal.body));
    assert.equal(signal.body.error.code, 'capability_not_supported');
    const whatsapp = await t.request('GET', `/${key}/groups/120363000000000000@g.us`);
    assert.equal(whatsapp.status, 400, JSON.stringify(whatsapp.body));
    assert.equal(whatsapp.body.error.code, 'validation_failed');
    assert.match(whatsapp.body.error.message, /^path\.groupJid /);
  });

  it('takes a Signal group id as the `groupJid` of a group-invite send (the channel then answers it sends text only) and refuses a WhatsApp JID', async () => {
    const { body: openapi } = await t.request('GET', '/openapi.json');
    const groupJid = openapi.paths['/{key}/message/group-invite'].post.requestBody.content['application/json'].schema.properties.groupJid;
    assert.deepEqual({ pattern: groupJid.pattern, description: groupJid.description }, {
      pattern: '^group\\.[A-Za-z0-9+/]{16,}={0,2}$', description: 'A Signal group id (`group.` followed by the base64 group id).',
    });
    const sent = network.sent.length;
    const invite = { to: '7c9e6679-7425-40de-944b-e07fc1f90ae7', groupName: 'Customers', inviteCode: 'AbCdEfGh12345' };
    const signal = await t.request('POST', `/${key}/message/group-invite`, { ...invite, groupJid: GROUP });
    assert.equal(signal.status, 422, JSON.stringify(signal.body));
    assert.equal(signal.body.error.code, 'capability_not_supported');
    const whatsapp = await t.request('POST', `/${key}/message/group-invite`, { ...invite, groupJid: '120363000000000000@g.us' });
    assert.equal(whatsapp.status, 400, JSON.stringify(whatsapp.body));
    assert.match(whatsapp.body.error.message, /^body\.groupJid must match pattern/);
    assert.equal(network.sent.length, sent);
  });
});
