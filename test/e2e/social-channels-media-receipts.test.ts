import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { DEFAULT_MEDIA_LIMITS } from '@parley/core';
import { startMockGraph, type MockGraph } from '@parley/meta-graph/testing';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { apiErrorAnswer, fieldError } from '../support/api-error.js';
import { metaFixture, PNG_PIXEL, postWebhook } from '../support/meta-channels.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// Accounts and users of the channel plugins' fixtures.
const FB_PAGE = '106123456789012';
const FB_USER = '7012345678901234';
const FB_SECRET = 'messenger-app-secret-abcdef012345';
const FB_LINK = { accessToken: 'EAAMe2epagetoken0123456789', appSecret: FB_SECRET, verifyToken: 'verify-messenger-e2e-0002', accountId: FB_PAGE };
const SENT = ['m_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN0001', 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN0002'];
const CDN_PATH = '/v/t1.15752-9/451234567_1234567890_n.png';
/** `media.maxDownloadBytes` of this server: far above the fixtures' pixel, below {@link LARGE}. */
const MAX_DOWNLOAD = 4096;
const LARGE = Buffer.alloc(MAX_DOWNLOAD * 4, 7);

/** A Messenger notification of the fixtures' Page with the given messaging events (Meta's documented shapes). */
function pageBody(...messaging: Record<string, unknown>[]): Buffer {
  return Buffer.from(JSON.stringify({ object: 'page', entry: [{ id: FB_PAGE, time: Date.now(), messaging }] }));
}

/** A received image whose link is the mock CDN's, like Meta's signed (and expiring) CDN links. */
function imageEvent(mid: string, url: string): Record<string, unknown> {
  return {
    sender: { id: FB_USER }, recipient: { id: FB_PAGE }, timestamp: 1718000001000,
    message: { mid, attachments: [{ type: 'image', payload: { url } }] },
  };
}

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`messenger media, receipts, typing and edits through the server (${storage})`, () => {
    let t: TestServer;
    let graph: MockGraph;
    let hooks: HttpReceiver;
    const created: string[] = [];

    before(async () => {
      graph = await startMockGraph();
      hooks = await startHttpReceiver();
      t = await startTestServer({
        plugins: [
          { package: `@parley/storage-${storage}` },
          { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
          { package: '@parley/webhook-native' },
          // The mock stands in for both the Graph API and Meta's CDN (on loopback: the test server allows private URLs).
          { package: '@parley/channel-messenger', options: { graphBaseUrl: graph.url, profileLookup: false } },
          // Configured but never linked here: a send through it answers 409 channel_not_linked. (The provider
          // enum lists the channels the configured plugins register: an unregistered one answers 400.)
          { package: '@parley/channel-instagram', options: { graphBaseUrl: graph.url, profileLookup: false } },
        ],
        config: { media: { ...DEFAULT_MEDIA_LIMITS, maxDownloadBytes: MAX_DOWNLOAD } },
        captureLogs: true,
      });
    });
    after(async () => {
      await t.stop();
      await graph.close();
      await hooks.close();
    });
    beforeEach(() => graph.reset());
    afterEach(async () => {
      for (const key of created.splice(0)) assert.equal((await t.client().call('adminDeleteInstance', { params: { key } })).status, 200);
    });

    async function linkedShop(name: string, webhook?: { webhookMessage: string }): Promise<{ id: string; key: string }> {
      const shop = await t.createInstance({ name, ...(webhook ? { webhook: { ...webhook, allowWebhook: true, webhookFormat: 'native' } } : {}) });
      created.push(shop.key);
      graph.on('GET', '/v26.0/me', { status: 200, body: { id: FB_PAGE, name: 'Parley Shop' } });
      const res = await t.client(shop.key).call('linkChannel', { params: { channel: 'messenger' }, body: FB_LINK });
      assert.equal(res.status, 200, JSON.stringify(res));
      graph.reset();
      return shop;
    }

    const stored = (instanceId: string, id: string) => t.server.context.storage.messages.get(instanceId, id);

    it('keeps a received image with save_media on: the media route answers it after Meta\'s link expired', async () => {
      const shop = await linkedShop('fb-save-media');
      const api = t.client(shop.key);
      assert.equal((await api.call('updateInstanceFlags', { query: { saveMedia: true } })).status, 200);
      graph.on('GET', CDN_PATH, { status: 200, body: PNG_PIXEL, contentType: 'image/png' });
      const mid = 'm_saved-image-0001';
      const res = await postWebhook(t, 'messenger', pageBody(imageEvent(mid, `${graph.url}${CDN_PATH}?oe=66A0B1C2`)), { appSecret: FB_SECRET });
      assert.deepStrictEqual({ status: res.status, body: res.body }, { status: 200, body: { received: 1 } });
      await t.settle();
      // Downloaded once, at ingestion, by the server.
      assert.deepStrictEqual(graph.requests.map((r) => ({ method: r.method, path: r.path })), [{ method: 'GET', path: CDN_PATH }]);

      // Meta's link expires: its CDN refuses it from now on.
      graph.on('GET', CDN_PATH, { status: 403, body: { error: 'URL signature expired' } });
      const binary = await t.request('GET', `/${shop.key}/message/${mid}/media`);
      assert.equal(binary.status, 200);
      assert.equal(binary.headers.get('content-type'), 'image/png');
      assert.deepStrictEqual(binary.raw, PNG_PIXEL);
      const json = await api.call('getMessageMedia', { params: { messageId: mid }, query: { format: 'json' } });
      assert.deepStrictEqual(json, { status: 200, data: `data:image/png;base64,${PNG_PIXEL.toString('base64')}` });
      assert.equal(graph.requests.length, 1, 'the stored copy is served, the CDN is not asked again');
    });

    it('without save_media, downloads from Meta\'s link on demand and answers 404 media_not_found once it expired', async () => {
      const shop = await linkedShop('fb-media-on-demand');
      const mid = 'm_on-demand-image-0001';
      await postWebhook(t, 'messenger', pageBody(imageEvent(mid, `${graph.url}${CDN_PATH}?oe=66A0B1C3`)), { appSecret: FB_SECRET });
      await t.settle();
      assert.equal(graph.requests.length, 0, 'nothing is downloaded at ingestion');
      assert.equal(await t.server.context.storage.media.get(shop.id, mid), null);

      graph.on('GET', CDN_PATH, { status: 200, body: PNG_PIXEL, contentType: 'image/png' });
      const live = await t.request('GET', `/${shop.key}/message/${mid}/media`);
      assert.deepStrictEqual({ status: live.status, type: live.headers.get('content-type'), raw: live.raw }, { status: 200, type: 'image/png', raw: PNG_PIXEL });

      graph.on('GET', CDN_PATH, { status: 403, body: { error: 'URL signature expired' } });
      await assert.rejects(t.client(shop.key).call('getMessageMedia', { params: { messageId: mid }, query: { format: 'json' } }), apiErrorAnswer({
        status: 404,
        error: {
          code: 'media_not_found',
          message: `media of message ${mid} is no longer available: Messenger's link answered HTTP 403 `
            + '(Meta\'s attachment links expire; turn save_media on to keep received media)',
        },
      }));
    });

    it('received media over media.maxDownloadBytes: with save_media on the message is stored, the media not (one warning); GET media answers 413 media_too_large', async () => {
      const shop = await linkedShop('fb-too-large');
      const api = t.client(shop.key);
      assert.equal((await api.call('updateInstanceFlags', { query: { saveMedia: true } })).status, 200);
      graph.on('GET', CDN_PATH, { status: 200, body: LARGE, contentType: 'image/png' });
      const mid = 'm_too-large-image-0001';
      const logsBefore = t.logs.length;
      const res = await postWebhook(t, 'messenger', pageBody(imageEvent(mid, `${graph.url}${CDN_PATH}?oe=66A0B1C4`)), { appSecret: FB_SECRET });
      assert.deepStrictEqual({ status: res.status, body: res.body }, { status: 200, body: { received: 1 } });
      await t.settle();
      assert.equal((await stored(shop.id, mid))?.key.id, mid, 'the message is stored');
      assert.equal(await t.server.context.storage.media.get(shop.id, mid), null, 'its media is not');
      const warnings = t.logs.slice(logsBefore).map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.message === mid && l.level === 40);
      assert.deepStrictEqual(warnings.map((l) => [l.msg, l.limit, l.setting, 'err' in l]), [[
        `received media not saved: media of message ${mid} is larger than ${MAX_DOWNLOAD} bytes, the limit of received media (media.maxDownloadBytes)`,
        MAX_DOWNLOAD, 'media.maxDownloadBytes', false,
      ]]);

      const expected = apiErrorAnswer({
        status: 413,
        error: {
          code: 'media_too_large',
          message: `media of message ${mid} is larger than ${MAX_DOWNLOAD} bytes, the limit of received media (media.maxDownloadBytes)`,
          details: { limit: MAX_DOWNLOAD, setting: 'media.maxDownloadBytes' },
        },
      });
      await assert.rejects(api.call('getMessageMedia', { params: { messageId: mid }, query: { format: 'json' } }), expected);
      const binary = await t.request('GET', `/${shop.key}/message/${mid}/media`);
      assert.deepStrictEqual([binary.status, binary.headers.get('content-type'), binary.body.error.code], [413, 'application/json; charset=utf-8', 'media_too_large']);
    });

    it('moves messages sent through the API along Messenger\'s watermark receipts, with a status webhook each', async () => {
      const shop = await linkedShop('fb-watermark', { webhookMessage: `${hooks.url}/fb-watermark` });
      graph.on('POST', '/v26.0/me/messages',
        { status: 200, body: { recipient_id: FB_USER, message_id: SENT[0] } },
        { status: 200, body: { recipient_id: FB_USER, message_id: SENT[1] } });
      const api = t.client(shop.key);
      const first = await api.call('sendText', { body: { to: FB_USER, text: 'Your order shipped.', provider: 'messenger' } });
      assert.equal(first.data.status, 'PENDING');
      const sentAt = Number(first.data.messageTimestamp);
      // Receipts cover whole seconds of record time: the second message goes out in a later second.
      await t.waitFor(() => Math.floor(Date.now() / 1000) > sentAt, 2000, 'the next second');
      assert.equal((await api.call('sendText', { body: { to: FB_USER, text: 'Anything else?', provider: 'messenger' } })).status, 200);

      // Meta's message_deliveries without mids and message_reads: watermarks covering the first message only.
      const watermark = sentAt * 1000 + 999;
      const delivery = pageBody({ sender: { id: FB_USER }, recipient: { id: FB_PAGE }, delivery: { watermark } });
      const read = pageBody({ sender: { id: FB_USER }, recipient: { id: FB_PAGE }, timestamp: watermark + 1, read: { watermark } });
      for (const body of [delivery, read, read]) {
        const res = await postWebhook(t, 'messenger', body, { appSecret: FB_SECRET });
        assert.equal(res.status, 200);
      }
      await t.settle();

      assert.equal((await stored(shop.id, SENT[0]!))?.status, 'READ');
      assert.equal((await stored(shop.id, SENT[1]!))?.status, 'PENDING');
      const read0 = await api.call('getMessage', { params: { messageId: SENT[0]! } });
      assert.equal(read0.data.status, 'READ');
      // The watermark receipt itself (no id, spec 6.3), then the message it moved; the redelivered read moves nothing.
      const statuses = t.events.filter((e) => e.type === 'message.status' && e.instance === shop.id)
        .map((e) => e.type === 'message.status' && { id: e.messageId, status: e.status });
      assert.deepStrictEqual(statuses, [
        { id: '', status: 'delivered' }, { id: SENT[0], status: 'delivered' },
        { id: '', status: 'read' }, { id: SENT[0], status: 'read' },
        { id: '', status: 'read' },
      ]);
      const hook = await t.waitFor(() => hooks.requests.find((r) => r.url === '/fb-watermark'
        && (r.json as { type?: string; data?: { messageId?: string; status?: string } }).type === 'message.status'
        && (r.json as { data: { messageId: string; status: string } }).data.messageId === SENT[0]
        && (r.json as { data: { status: string } }).data.status === 'read'), 5000, 'the read status webhook');
      assert.deepStrictEqual({ ...(hook.json as { data: object }).data, timestamp: 0 }, {
        messageId: SENT[0], chatJid: FB_USER, recipientId: FB_USER, status: 'read', timestamp: 0,
      });
      assert.equal((hook.json as { provider: string }).provider, 'messenger');
    });

    it('sends typing_on / typing_off / mark_seen for presence with provider messenger; bad input changes nothing', async () => {
      const shop = await linkedShop('fb-typing');
      graph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: FB_USER } });
      const api = t.client(shop.key);
      for (const status of ['composing', 'paused', 'available'] as const) {
        assert.deepStrictEqual(await api.call('sendPresence', { body: { to: FB_USER, status, provider: 'messenger' } }), {
          status: 200, message: `presence ${status} sent to ${FB_USER}`,
        });
      }
      assert.deepStrictEqual(graph.requests.map((r) => ({ path: r.path, json: r.json })), ['typing_on', 'typing_off', 'mark_seen'].map((action) => ({
        path: '/v26.0/me/messages', json: { recipient: { id: FB_USER }, sender_action: action },
      })));

      await assert.rejects(api.call('sendPresence', { body: { to: 'not-a-psid', status: 'composing', provider: 'messenger' } }), apiErrorAnswer(
        fieldError('body.to must be the Page-scoped user id (PSID) of the recipient (digits)', { field: 'body.to' }),
      ));
      await assert.rejects(api.call('sendPresence', { body: { to: FB_USER, status: 'composing', provider: 'instagram' } }), apiErrorAnswer({
        status: 409, error: { code: 'channel_not_linked', message: 'instagram is not linked to this instance' },
      }));
      const unknownStatus = await t.request('POST', `/${shop.key}/message/presence`, { to: FB_USER, status: 'typing', provider: 'messenger' });
      assert.deepStrictEqual([unknownStatus.status, unknownStatus.body.error.code], [400, 'validation_failed']);
      assert.equal(graph.requests.length, 3, 'no Graph call for refused input');
    });

    it('stores a Messenger message_edit over the original text (message-edit)', async () => {
      const shop = await linkedShop('fb-edit');
      const mid = JSON.parse(metaFixture('messenger', 'fb-text').toString('utf8')).entry[0].messaging[0].message.mid as string;
      await postWebhook(t, 'messenger', metaFixture('messenger', 'fb-text'), { appSecret: FB_SECRET });
      const edit = pageBody({ sender: { id: FB_USER }, recipient: { id: FB_PAGE }, timestamp: 1718000060000, message_edit: { mid, text: 'Hello, do you ship to Porto?', num_edit: 1 } });
      for (let i = 0; i < 2; i++) assert.deepStrictEqual((await postWebhook(t, 'messenger', edit, { appSecret: FB_SECRET })).body, { received: i === 0 ? 1 : 0 });
      await t.settle();

      const message = (await t.client(shop.key).call('getMessage', { params: { messageId: mid } })).data;
      assert.deepStrictEqual({ key: message.key, message: message.message }, {
        key: { remoteJid: FB_USER, fromMe: false, id: mid }, message: { extendedTextMessage: { text: 'Hello, do you ship to Porto?' } },
      });
      const edits = t.events.filter((e) => e.type === 'message' && e.instance === shop.id && e.message.edit)
        .map((e) => e.type === 'message' && { id: e.message.id, edit: e.message.edit, content: e.message.content });
      assert.deepStrictEqual(edits, [{ id: `${mid}-edit-1`, edit: { originalMessageId: mid }, content: { type: 'text', body: 'Hello, do you ship to Porto?' } }]);
    });
  });
}
