import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { PluginEntry } from '@parley/server';
import { startMockGraph, type MockGraph } from '@parley/meta-graph/testing';
import { RELAY, relaySent } from '../support/fixtures/relay-channel.plugin.js';
import { metaFixture, postWebhook } from '../support/meta-channels.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const relayPlugin = fileURLToPath(new URL('../support/fixtures/relay-channel.plugin.js', import.meta.url));
const RELAY_LINK = { accessToken: 'relay-token-1', appSecret: 'relay-secret-1', verifyToken: 'relay-verify-1', accountId: '4242' };

type Schema = { enum?: string[]; description?: string; properties?: Record<string, Schema> };

/** The JSON body schema of an operation of the OpenAPI document. */
function bodySchema(openapi: { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>> }, path: string): Schema {
  return openapi.paths[path]!.post!.requestBody!.content['application/json']!.schema;
}

describe('a channel registered by a third-party plugin', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
        { package: '@parley/webhook-native' }, { package: relayPlugin },
      ],
    });
  });
  after(async () => {
    await t.stop();
  });

  it('shows up in /openapi.json: the provider enum of sends and records, the linkable channels, the recipient description', async () => {
    const { body: openapi } = await t.request('GET', '/openapi.json');
    const sendText = bodySchema(openapi, '/{key}/message/text');
    assert.deepEqual(sendText.properties!.provider, { enum: ['whatsapp', RELAY], description: 'Channel to send through (default whatsapp).' });
    assert.equal(sendText.properties!.to!.description,
      'Recipient, as the chosen channel addresses people: whatsapp: Phone number with country code (digits), or a JID. relay-net: A relay handle (lower-case letters).');
    const link = openapi.paths['/{key}/instance/links/{channel}'].post.parameters.find((p: { name: string }) => p.name === 'channel');
    assert.deepEqual(link.schema.enum, [RELAY]);
    const record = openapi.paths['/{key}/message/text'].post.responses['200'].content['application/json'].schema.properties.data;
    assert.deepEqual(record.properties.provider, { enum: ['whatsapp', RELAY] });
  });

  it('is accepted as provider on a send once linked, and refused for an unregistered channel id', async () => {
    const shop = await t.connectedSandbox({ name: 'relay-shop', number: '5511910000101' });
    const linked = await t.request('POST', `/${shop.key}/instance/links/${RELAY}`, RELAY_LINK);
    assert.deepEqual({ status: linked.status, accountId: linked.body.data.accountId }, { status: 200, accountId: '4242' });

    const sent = await t.request('POST', `/${shop.key}/message/text`, { to: 'ana', text: 'over the relay', provider: RELAY });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.data.provider, RELAY);
    assert.deepEqual(relaySent.at(-1), { instanceId: shop.id, to: 'ana', text: 'over the relay' });

    const unknown = await t.request('POST', `/${shop.key}/message/text`, { to: 'ana', text: 'x', provider: 'telegram' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.details.fields[0].field, 'body.provider');
    assert.equal(relaySent.length, 1);
  });

  it('receives inbound messages through the index of linked accounts, for linked accounts only', async () => {
    const shop = await t.connectedSandbox({ name: 'relay-inbound', number: '5511910000102' });
    await t.request('POST', `/${shop.key}/instance/links/${RELAY}`, { ...RELAY_LINK, accountId: '5151' });
    const delivered = await t.request('POST', `/${RELAY}/inbound`, { accountId: '5151', id: 'r-1', from: 'bia', text: 'hello relay', timestamp: 1_760_000_000 });
    assert.deepEqual(delivered.body, { received: 1 });
    await t.settle();
    const event = t.events.find((e) => e.type === 'message' && e.message.id === 'r-1');
    assert.ok(event);
    assert.deepEqual([event.instance, event.provider], [shop.id, RELAY]);

    const stranger = await t.request('POST', `/${RELAY}/inbound`, { accountId: '9999', id: 'r-2', from: 'bia', text: 'nobody', timestamp: 1_760_000_001 });
    assert.deepEqual(stranger.body, { received: 0 });

    // Unlinked: the index forgets the account, so its deliveries reach nobody.
    assert.equal((await t.request('DELETE', `/${shop.key}/instance/links/${RELAY}`)).status, 200);
    const afterUnlink = await t.request('POST', `/${RELAY}/inbound`, { accountId: '5151', id: 'r-3', from: 'bia', text: 'gone', timestamp: 1_760_000_002 });
    assert.deepEqual(afterUnlink.body, { received: 0 });
  });
});

const IG_ACCOUNT = '17841405822304914';
const IG_LINK = { accessToken: 'IGQWRe2eaccesstoken0123456789', appSecret: 'instagram-app-secret-0123456789ab', verifyToken: 'verify-instagram-index-01', accountId: IG_ACCOUNT };

describe('Meta webhooks find their instance through the index of linked accounts', () => {
  let graph: MockGraph;
  let dataDir: string;
  let plugins: PluginEntry[];
  before(async () => {
    graph = await startMockGraph();
    dataDir = mkdtempSync(join(tmpdir(), 'parley-index-'));
    plugins = [
      { package: '@parley/storage-sqlite' },
      { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
      { package: '@parley/channel-instagram', options: { graphBaseUrl: graph.url, profileLookup: false } },
    ];
  });
  after(async () => {
    await graph.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('routes by the index (a link missing from it reaches nobody), and a store written before the index gets it at start', async () => {
    const body = metaFixture('instagram', 'ig-text');
    const first = await startTestServer({ dataDir, plugins });
    try {
      const shop = await first.createInstance({ name: 'ig-index' });
      graph.on('GET', `/v26.0/${IG_ACCOUNT}`, { status: 200, body: { id: IG_ACCOUNT, username: 'parley.shop' } });
      assert.equal((await first.request('POST', `/${shop.key}/instance/links/instagram`, IG_LINK)).status, 200);
      const handshake = await first.request('GET', `/instagram/webhook?hub.mode=subscribe&hub.verify_token=${IG_LINK.verifyToken}&hub.challenge=7`);
      assert.deepEqual([handshake.status, handshake.body], [200, '7']);

      // The record still holds the link, but without its index entry the notification finds no instance.
      const state = first.server.context.storage.state;
      const entry = await state.get('parley.linked-accounts:instagram', IG_ACCOUNT);
      assert.deepEqual(entry, { instanceId: shop.id });
      await state.delete('parley.linked-accounts:instagram', IG_ACCOUNT);
      assert.deepEqual((await postWebhook(first, 'instagram', body, { appSecret: IG_LINK.appSecret })).body, { received: 0 });
      // As a store written before the index existed: no entries and no "built" mark.
      await state.delete('parley.linked-accounts', 'built-v1');
      await state.clearPrefix('parley.verify-tokens:');
    } finally {
      await first.stop();
    }

    const second = await startTestServer({ dataDir, plugins });
    try {
      assert.deepEqual((await postWebhook(second, 'instagram', body, { appSecret: IG_LINK.appSecret })).body, { received: 1 });
      const handshake = await second.request('GET', `/instagram/webhook?hub.mode=subscribe&hub.verify_token=${IG_LINK.verifyToken}&hub.challenge=8`);
      assert.deepEqual([handshake.status, handshake.body], [200, '8']);
    } finally {
      await second.stop();
    }
  });
});
