import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { apiError } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const ALICE = '5511972000001';
const BOB = '5511972000002';

/**
 * `allowNumber` with group ids as docs/webhooks.md writes them (`120363025246125486` for
 * `120363025246125486@g.us`, 18 digits): the settings API accepts what the engine matches, and a
 * listed group id forwards that group's messages and nothing about other chats.
 */
describe('webhooks: allowNumber with group ids', () => {
  let t: TestServer;
  let receiver: HttpReceiver;

  before(async () => {
    t = await startTestServer();
    receiver = await startHttpReceiver();
  });
  after(async () => {
    await t.stop();
    await receiver.close();
  });

  it('accepts the group id and the numbers docs/webhooks.md shows, and refuses entries the engine cannot match', async () => {
    const created = await t.createInstance({ number: '5511972000009' });
    const api = t.client(created.key);
    const documented = '120363025246125486, 5511988887777, +5511977776666';
    const put = await api.call('updateWebhookSettings', { body: { allowNumber: documented } });
    assert.equal(put.status, 200);
    assert.equal(put.data.allowNumber, documented);
    // 21 digits, an empty entry, a JID: refused by the schema, which is the engine's own pattern.
    for (const allowNumber of ['123456789012345678901', '5511988887777,', '120363025246125486@g.us']) {
      await assert.rejects(api.call('updateWebhookSettings', { body: { allowNumber } }), apiError(400, 'validation_failed', /body\.allowNumber must match pattern/), allowNumber);
    }
    assert.equal((await api.call('getInstance')).instance.webhook.allowNumber, documented);
  });

  it('a listed group id forwards the group messages and holds back the direct chat', async () => {
    const alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
    const bob = await t.connectedSandbox({ name: 'bob', number: BOB });
    const group = await t.client(alice.key).call('createGroup', { body: { name: 'Filtered', participants: [BOB] } });
    const groupJid = group.data.id;
    const groupId = groupJid.replace(/@g\.us$/, '');
    assert.match(groupId, /^120363\d{12}$/, 'a group id like the documented ones');
    const put = await t.client(bob.key).call('updateWebhookSettings', {
      body: { allowWebhook: true, allowNumber: groupId, webhookFormat: 'native', webhookMessage: `${receiver.url}/bob`, webhookGroup: `${receiver.url}/bob` },
    });
    assert.equal(put.status, 200);

    const send = async (to: string, text: string) => {
      const res = await t.client(alice.key).call('sendText', { body: { to, text } });
      assert.equal(res.status, 200);
      return res.data.key.id;
    };
    const direct = await send(BOB, 'not forwarded');
    const inGroup = await send(groupJid, 'forwarded');
    const received = (id: string) => t.events.some((e) => e.instance === bob.id && e.type === 'message' && e.message.id === id);
    await t.waitFor(() => received(direct) && received(inGroup), 5000, 'both messages on bob');
    await t.waitFor(() => receiver.requests.some((r) => (r.json as any)?.data?.message?.id === inGroup), 5000, 'the group message delivered');
    await t.settle();
    const messages = receiver.requests.filter((r) => (r.json as any).type === 'message').map((r) => (r.json as any).data.message.id);
    assert.deepEqual(messages, [inGroup]);
  });
});
