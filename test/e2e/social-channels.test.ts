import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { ParleyApiError } from '@parley/client';
import type { PluginEntry } from '@parley/server';
import { signatureHeader, startMockGraph, type MockGraph } from '@parley/meta-graph/testing';
import {
  appSecretProof, metaFixture, PNG_PIXEL, postWebhook, startImageServer, type ImageServer, type MetaChannel,
} from '../support/meta-channels.js';
import { AnswerRecorder } from '../support/answer-recorder.js';
import { apiError, apiErrorAnswer } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// The accounts and senders of the channel plugins' fixtures (Meta's documented webhook shapes).
const IG_ACCOUNT = '17841405822304914';
const IG_USER = '6543210987654321';
const IG_TOKEN = 'IGQWRe2eaccesstoken0123456789';
const IG_SECRET = 'instagram-app-secret-0123456789ab';
const IG_VERIFY = 'verify-instagram-e2e-0001';
const FB_PAGE = '106123456789012';
const FB_USER = '7012345678901234';
const FB_TOKEN = 'EAAMe2epagetoken0123456789';
const FB_SECRET = 'messenger-app-secret-abcdef012345';
const FB_VERIFY = 'verify-messenger-e2e-0001';
const SENT_MID = 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQxNDA1ODIyMzA0OTE0OjM0MDI4MjM2NjsentAZDZD';
const FB_SENT_MID = 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBNsent';

const IG_LINK = { accessToken: IG_TOKEN, appSecret: IG_SECRET, verifyToken: IG_VERIFY, accountId: IG_ACCOUNT };
const FB_LINK = { accessToken: FB_TOKEN, appSecret: FB_SECRET, verifyToken: FB_VERIFY, accountId: FB_PAGE };

/** The `mid` of a fixture's first messaging event. */
function midOf(channel: MetaChannel, name: string): string {
  return JSON.parse(metaFixture(channel, name).toString('utf8')).entry[0].messaging[0].message.mid;
}

/** True when an answer carries none of the given secrets (raw bytes, so no member escapes the check). */
function carriesNone(raw: Buffer, secrets: string[]): boolean {
  const text = raw.toString('utf8');
  return secrets.every((secret) => !text.includes(secret));
}

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`instagram and messenger through the server (${storage})`, () => {
    let t: TestServer;
    let recorder: AnswerRecorder;
    let igGraph: MockGraph;
    let fbGraph: MockGraph;
    let images: ImageServer;
    const created: string[] = [];

    before(async () => {
      igGraph = await startMockGraph();
      fbGraph = await startMockGraph();
      images = await startImageServer();
      t = await startTestServer({
        plugins: [
          { package: `@parley/storage-${storage}` },
          { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
          { package: '@parley/webhook-native' },
          { package: '@parley/webhook-meta' },
          { package: '@parley/channel-instagram', options: { graphBaseUrl: igGraph.url, profileLookup: false } },
          { package: '@parley/channel-messenger', options: { graphBaseUrl: fbGraph.url } },
        ],
        captureLogs: true,
      });
      recorder = new AnswerRecorder(t);
    });
    after(async () => {
      await t.stop();
      await igGraph.close();
      await fbGraph.close();
      await images.close();
    });
    beforeEach(() => {
      igGraph.reset();
      fbGraph.reset();
      images.hits.length = 0;
    });
    // Webhooks reach every instance linked to an account: each test removes its instances.
    afterEach(async () => {
      for (const key of created.splice(0)) assert.equal((await t.client().call('adminDeleteInstance', { params: { key } })).status, 200);
    });

    async function instance(name: string): Promise<{ id: string; key: string }> {
      const made = await t.createInstance({ name });
      created.push(made.key);
      return made;
    }

    async function linkInstagram(key: string): Promise<void> {
      igGraph.on('GET', `/v26.0/${IG_ACCOUNT}`, { status: 200, body: { id: IG_ACCOUNT, username: 'parley.shop', name: 'Parley Shop' } });
      const res = await link(key, 'instagram', IG_LINK);
      assert.equal(res.status, 200, JSON.stringify(res));
      igGraph.reset();
    }

    async function linkMessenger(key: string): Promise<void> {
      fbGraph.on('GET', '/v26.0/me', { status: 200, body: { id: FB_PAGE, name: 'Parley Shop' } });
      const res = await link(key, 'messenger', FB_LINK);
      assert.equal(res.status, 200, JSON.stringify(res));
      fbGraph.reset();
    }

    /** Links a channel through the recording client (its raw answer is then `recorder.last`). */
    const link = (key: string, channel: 'instagram' | 'messenger', body: typeof IG_LINK) =>
      recorder.instance(key).call('linkChannel', { params: { channel }, body });
    const linksOf = (key: string) => t.client(key).call('listLinks');
    const chatsOf = (key: string) => t.client(key).call('listChats');
    const adminView = (key: string) => t.client().call('adminGetInstance', { params: { key } });

    async function messagesOf(key: string, chat: string) {
      const res = await t.client(key).call('listChatMessages', { params: { jid: chat } });
      assert.equal(res.status, 200, JSON.stringify(res));
      return res;
    }

    /**
     * Messages stored for a chat, read from storage: where a test stores nothing there is no chat, and
     * the API has no chat of that user id to list.
     */
    async function storedMessageCount(instanceId: string, chat: string): Promise<number> {
      return (await t.server.context.storage.messages.listByChat(instanceId, chat, { page: 1, limit: 100 })).total;
    }

    describe('linking', () => {
      it('links Instagram after the Graph API accepts the token, and never answers a secret', async () => {
        const shop = await instance('ig-shop');
        igGraph.on('GET', `/v26.0/${IG_ACCOUNT}`, { status: 200, body: { id: IG_ACCOUNT, username: 'parley.shop', name: 'Parley Shop' } });
        const before = Date.now();
        const res = await link(shop.key, 'instagram', IG_LINK);
        const afterLink = Date.now();

        assert.equal(recorder.last.status, 200);
        const linkedAt = res.data.linkedAt;
        assert.ok(Number.isInteger(linkedAt) && linkedAt >= before && linkedAt <= afterLink, `linkedAt ${linkedAt}`);
        assert.deepStrictEqual(res, { status: 200, data: { accountId: IG_ACCOUNT, username: 'parley.shop', linkedAt } });
        assert.ok(carriesNone(recorder.last.raw, [IG_TOKEN, IG_SECRET, IG_VERIFY]));

        // The token was checked once, in the Authorization header, with appsecret_proof.
        assert.deepStrictEqual(igGraph.requests.map((r) => ({ method: r.method, path: r.path, query: r.query, authorization: r.headers.authorization })), [{
          method: 'GET', path: `/v26.0/${IG_ACCOUNT}`, query: { fields: 'id,username,name', appsecret_proof: appSecretProof(IG_TOKEN, IG_SECRET) },
          authorization: `Bearer ${IG_TOKEN}`,
        }]);

        assert.deepStrictEqual(await linksOf(shop.key), { status: 200, data: { instagram: { accountId: IG_ACCOUNT, username: 'parley.shop', linkedAt } } });
        const view = await recorder.instance(shop.key).call('getInstance');
        assert.equal(view.status, 200);
        assert.deepStrictEqual(view.instance.links, { instagram: { accountId: IG_ACCOUNT, username: 'parley.shop', linkedAt } });
        assert.ok(carriesNone(recorder.last.raw, [IG_TOKEN, IG_SECRET, IG_VERIFY]));
        const admin = await recorder.client.call('adminGetInstance', { params: { key: shop.key } });
        assert.deepStrictEqual(admin.data.linkedChannels, ['instagram']);
        assert.ok(carriesNone(recorder.last.raw, [IG_TOKEN, IG_SECRET, IG_VERIFY]));
      });

      it('links Messenger when /me of the Page token is the Page, beside Instagram', async () => {
        const shop = await instance('fb-shop');
        await linkInstagram(shop.key);
        fbGraph.on('GET', '/v26.0/me', { status: 200, body: { id: FB_PAGE, name: 'Parley Shop' } });
        const res = await link(shop.key, 'messenger', FB_LINK);

        assert.equal(recorder.last.status, 200);
        const linkedAt = res.data.linkedAt;
        assert.deepStrictEqual(res, { status: 200, data: { accountId: FB_PAGE, linkedAt } });
        assert.ok(carriesNone(recorder.last.raw, [FB_TOKEN, FB_SECRET, FB_VERIFY]));
        assert.deepStrictEqual(fbGraph.requests.map((r) => ({ path: r.path, query: r.query, authorization: r.headers.authorization })), [{
          path: '/v26.0/me', query: { fields: 'id,name,username', appsecret_proof: appSecretProof(FB_TOKEN, FB_SECRET) }, authorization: `Bearer ${FB_TOKEN}`,
        }]);

        const links = await recorder.instance(shop.key).call('listLinks');
        assert.deepStrictEqual(Object.keys(links.data).sort(), ['instagram', 'messenger']);
        assert.deepStrictEqual(links.data.messenger, { accountId: FB_PAGE, linkedAt });
        assert.ok(carriesNone(recorder.last.raw, [IG_TOKEN, IG_SECRET, IG_VERIFY, FB_TOKEN, FB_SECRET, FB_VERIFY]));
      });

      it('answers 400 naming accessToken when the Graph API refuses the token, and stores nothing', async () => {
        const shop = await instance('ig-expired');
        igGraph.on('GET', `/v26.0/${IG_ACCOUNT}`, {
          status: 400,
          body: { error: { message: 'Error validating access token: Session has expired.', type: 'OAuthException', code: 190, error_subcode: 463, fbtrace_id: 'AqE2Efbtrace' } },
        });
        await assert.rejects(link(shop.key, 'instagram', IG_LINK), apiErrorAnswer({
          status: 400,
          error: {
            code: 'validation_failed',
            message: 'body.accessToken was rejected: Instagram access token is invalid or expired (OAuthException 190): '
              + 'Error validating access token: Session has expired.; link the account again with a valid token',
            details: {
              retryable: false, upstreamCode: 190, kind: 'token', httpStatus: 400, subcode: 463, type: 'OAuthException', fbtraceId: 'AqE2Efbtrace',
              field: 'body.accessToken',
            },
          },
        }));
        assert.equal(recorder.last.status, 400);
        assert.ok(carriesNone(recorder.last.raw, [IG_TOKEN, IG_SECRET, IG_VERIFY]));
        assert.deepStrictEqual(await linksOf(shop.key), { status: 200, data: {} });
        assert.deepStrictEqual((await t.client(shop.key).call('getInstance')).instance.links, {});
        // Nothing stored: the verify token of the refused link opens no handshake. (Raw HTTP: the typed
        // webhook operations declare no `hub.*` query.)
        const handshake = await t.request('GET', `/instagram/webhook?hub.mode=subscribe&hub.verify_token=${IG_VERIFY}&hub.challenge=42`);
        assert.equal(handshake.status, 403);
      });

      it('answers 400 naming accountId when the token belongs to another Page', async () => {
        const shop = await instance('fb-other-page');
        fbGraph.on('GET', '/v26.0/me', { status: 200, body: { id: '999000111222333', name: 'Other Page' } });
        await assert.rejects(link(shop.key, 'messenger', FB_LINK), apiErrorAnswer({
          status: 400,
          error: {
            code: 'validation_failed',
            message: `body.accountId ${FB_PAGE} does not match the Messenger account of the access token (999000111222333)`,
            details: { field: 'body.accountId' },
          },
        }));
        assert.deepStrictEqual(await linksOf(shop.key), { status: 200, data: {} });
      });

      it('answers 502 upstream_error (retryable) on a Graph rate limit or outage, and stores nothing', async () => {
        const shop = await instance('ig-throttled');
        igGraph.on('GET', `/v26.0/${IG_ACCOUNT}`,
          { status: 400, body: { error: { message: '(#4) Application request limit reached', type: 'OAuthException', code: 4, is_transient: true } } },
          { status: 503, body: {} });

        await assert.rejects(link(shop.key, 'instagram', IG_LINK), apiErrorAnswer({
          status: 502,
          error: {
            code: 'upstream_error',
            message: 'Instagram Graph API rate limit reached (OAuthException 4): (#4) Application request limit reached; retry later',
            details: { retryable: true, upstreamCode: 4, kind: 'rate_limit', httpStatus: 400, type: 'OAuthException' },
          },
        }));
        await assert.rejects(link(shop.key, 'instagram', IG_LINK), apiErrorAnswer({
          status: 502,
          error: {
            code: 'upstream_error', message: 'Instagram Graph API error (HTTP 503): HTTP 503',
            details: { retryable: true, upstreamCode: 503, kind: 'other', httpStatus: 503 },
          },
        }));
        assert.equal(igGraph.requests.length, 2);
        assert.deepStrictEqual(await linksOf(shop.key), { status: 200, data: {} });
      });

      it('refuses bad link input before any Graph call', async () => {
        const shop = await instance('ig-bad-input');
        // A missing member, which the typed client refuses: sent raw.
        const missing = await t.request('POST', `/${shop.key}/instance/links/instagram`, { accessToken: IG_TOKEN, appSecret: IG_SECRET, accountId: IG_ACCOUNT });
        assert.deepStrictEqual(missing.body, {
          status: 400,
          error: { code: 'validation_failed', message: 'body.verifyToken is required', details: { fields: [{ field: 'body.verifyToken', message: 'body.verifyToken is required' }] } },
        });
        await assert.rejects(link(shop.key, 'instagram', { ...IG_LINK, accountId: 'parley.shop' }), (err: unknown) => {
          apiError(400, 'validation_failed')(err);
          assert.equal((err as ParleyApiError & { details: { fields: { field: string }[] } }).details.fields[0]!.field, 'body.accountId');
          return true;
        });
        // A channel outside the typed union: sent raw.
        const unknownChannel = await t.request('POST', `/${shop.key}/instance/links/telegram`, IG_LINK);
        assert.equal(unknownChannel.status, 400);
        assert.equal(unknownChannel.body.error.details.fields[0].field, 'path.channel');
        await assert.rejects(link(shop.key, 'instagram', { ...IG_LINK, accessToken: 'two words' }), apiErrorAnswer({
          status: 400,
          error: { code: 'validation_failed', message: 'body.accessToken must be a single token of at most 2048 characters', details: { field: 'body.accessToken' } },
        }));
        assert.equal(igGraph.requests.length, 0);
        assert.deepStrictEqual(await linksOf(shop.key), { status: 200, data: {} });
      });

      it('unlinks: the link, its handshake and its sends are gone', async () => {
        const shop = await instance('ig-unlink');
        await linkInstagram(shop.key);
        const unlink = () => t.client(shop.key).call('unlinkChannel', { params: { channel: 'instagram' } });
        assert.deepStrictEqual(await unlink(), { status: 200, message: 'instagram unlinked' });
        assert.deepStrictEqual(await linksOf(shop.key), { status: 200, data: {} });
        assert.deepStrictEqual((await adminView(shop.key)).data.linkedChannels, []);

        await assert.rejects(unlink(), apiErrorAnswer({ status: 400, error: { code: 'validation_failed', message: 'path.channel: instagram is not linked' } }));
        const handshake = await t.request('GET', `/instagram/webhook?hub.mode=subscribe&hub.verify_token=${IG_VERIFY}&hub.challenge=42`);
        assert.equal(handshake.status, 403);
        await assert.rejects(t.client(shop.key).call('sendText', { body: { to: IG_USER, text: 'still there?', provider: 'instagram' } }),
          apiErrorAnswer({ status: 409, error: { code: 'channel_not_linked', message: 'instagram is not linked to this instance' } }));
        // Webhooks of the unlinked account are acknowledged (Meta must not disable the app) and dropped.
        // (Webhook POSTs are raw HTTP: their signature covers the exact bytes Meta sends.)
        const hook = await postWebhook(t, 'instagram', metaFixture('instagram', 'ig-text'), { appSecret: IG_SECRET });
        assert.deepStrictEqual({ status: hook.status, body: hook.body }, { status: 200, body: { received: 0 } });
        await t.settle();
        assert.deepStrictEqual(await chatsOf(shop.key), { status: 200, data: [] });
        assert.equal(igGraph.requests.length, 0);
      });
    });

    describe('inbound webhooks', () => {
      it('answers Meta\'s verification handshake with the challenge as text/plain, 403 otherwise', async () => {
        const shop = await instance('ig-handshake');
        await linkInstagram(shop.key);
        const ok = await t.request('GET', `/instagram/webhook?hub.mode=subscribe&hub.verify_token=${IG_VERIFY}&hub.challenge=1158201444`);
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get('content-type'), 'text/plain; charset=utf-8');
        assert.equal(ok.body, '1158201444');

        const forbidden = { status: 403, error: { code: 'forbidden', message: 'verification failed' } };
        const wrong = await t.request('GET', '/instagram/webhook?hub.mode=subscribe&hub.verify_token=not-the-token&hub.challenge=1158201444');
        assert.deepStrictEqual({ status: wrong.status, body: wrong.body }, { status: 403, body: forbidden });
        const mode = await t.request('GET', `/instagram/webhook?hub.mode=unsubscribe&hub.verify_token=${IG_VERIFY}&hub.challenge=1158201444`);
        assert.deepStrictEqual({ status: mode.status, body: mode.body }, { status: 403, body: forbidden });
        // Verify tokens are per channel: Instagram's opens no Messenger subscription.
        const otherChannel = await t.request('GET', `/messenger/webhook?hub.mode=subscribe&hub.verify_token=${IG_VERIFY}&hub.challenge=1158201444`);
        assert.deepStrictEqual({ status: otherChannel.status, body: otherChannel.body }, { status: 403, body: forbidden });
      });

      it('stores a signed Instagram text under the sender\'s chat with provider instagram, once per redelivery', async () => {
        const shop = await instance('ig-inbound');
        await linkInstagram(shop.key);
        const body = metaFixture('instagram', 'ig-text');
        const mid = midOf('instagram', 'ig-text');

        const first = await postWebhook(t, 'instagram', body, { appSecret: IG_SECRET });
        assert.deepStrictEqual({ status: first.status, body: first.body }, { status: 200, body: { received: 1 } });
        await t.settle();

        assert.deepStrictEqual(await chatsOf(shop.key), { status: 200, data: [{ id: IG_USER, name: IG_USER, timestamp: 1718000000, unreadCount: 1 }] });
        const record = {
          key: { remoteJid: IG_USER, fromMe: false, id: mid },
          message: { extendedTextMessage: { text: 'Hi! Is the blue jacket still available?' } },
          messageTimestamp: '1718000000',
          status: 'DELIVERY_ACK',
          provider: 'instagram',
        };
        assert.deepStrictEqual(await messagesOf(shop.key, IG_USER), { status: 200, data: [record], page: 1, limit: 20, total: 1 });
        const events = t.events.filter((e) => e.type === 'message' && e.message.id === mid);
        assert.deepStrictEqual(events.map((e) => ({ instance: e.instance, provider: e.provider })), [{ instance: shop.id, provider: 'instagram' }]);

        // Meta redelivers until it sees a 200 in time: the same message is acknowledged and dropped.
        const again = await postWebhook(t, 'instagram', body, { appSecret: IG_SECRET });
        assert.deepStrictEqual({ status: again.status, body: again.body }, { status: 200, body: { received: 0 } });
        await t.settle();
        assert.deepStrictEqual(await messagesOf(shop.key, IG_USER), { status: 200, data: [record], page: 1, limit: 20, total: 1 });
        assert.equal(t.events.filter((e) => e.type === 'message' && e.message.id === mid).length, 1);
        // No Graph call for an inbound message (profile lookups are off in this server).
        assert.equal(igGraph.requests.length, 0);
      });

      it('checks the signature over the raw bytes Meta sent (\\uXXXX escapes), not over re-encoded JSON', async () => {
        const shop = await instance('ig-escapes');
        await linkInstagram(shop.key);
        const raw = metaFixture('instagram', 'ig-reaction');
        assert.ok(raw.includes('\\u2764\\ufe0f'));
        const reencoded = Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8'))));
        // Signed over the re-encoded form (a literal ❤️), the escaped bytes do not verify.
        const mismatched = await postWebhook(t, 'instagram', raw, { header: signatureHeader(reencoded, IG_SECRET) });
        assert.equal(mismatched.status, 401);

        const res = await postWebhook(t, 'instagram', raw, { appSecret: IG_SECRET });
        assert.deepStrictEqual({ status: res.status, body: res.body }, { status: 200, body: { received: 1 } });
        await t.settle();
        const target = JSON.parse(raw.toString('utf8')).entry[0].messaging[0].reaction.mid as string;
        const page = await messagesOf(shop.key, IG_USER);
        assert.deepStrictEqual(page.data, [{
          key: { remoteJid: IG_USER, fromMe: false, id: `${target}-reaction-1718000009000` },
          message: { reactionMessage: { key: { remoteJid: IG_USER, id: target }, text: '❤️' } },
          messageTimestamp: '1718000009', status: 'DELIVERY_ACK', provider: 'instagram',
        }]);
      });

      it('answers 401 to a missing, foreign or stale signature and stores nothing', async () => {
        const shop = await instance('ig-forged');
        await linkInstagram(shop.key);
        const body = metaFixture('instagram', 'ig-text');
        const unauthorized = (message: string) => ({ status: 401, body: { status: 401, error: { code: 'unauthorized', message } } });

        const foreign = await postWebhook(t, 'instagram', body, { appSecret: 'some-other-app-secret-000000000' });
        assert.deepStrictEqual({ status: foreign.status, body: foreign.body }, unauthorized('invalid x-hub-signature-256 signature'));
        const missing = await postWebhook(t, 'instagram', body, {});
        assert.deepStrictEqual({ status: missing.status, body: missing.body }, unauthorized('missing x-hub-signature-256 header'));
        // A body changed after signing: the signature of the original does not cover it.
        const original = metaFixture('instagram', 'ig-text');
        const tampered = Buffer.from(original.toString('utf8').replace('blue jacket', 'red jacket'));
        const stale = await postWebhook(t, 'instagram', tampered, { header: signatureHeader(original, IG_SECRET) });
        assert.deepStrictEqual({ status: stale.status, body: stale.body }, unauthorized('invalid x-hub-signature-256 signature'));
        const garbage = await postWebhook(t, 'instagram', body, { header: 'sha1=abc' });
        assert.deepStrictEqual({ status: garbage.status, body: garbage.body }, unauthorized('invalid x-hub-signature-256 signature'));

        await t.settle();
        assert.deepStrictEqual(await chatsOf(shop.key), { status: 200, data: [] });
        assert.equal(await storedMessageCount(shop.id, IG_USER), 0);
        assert.equal(t.events.filter((e) => e.type === 'message' && e.instance === shop.id).length, 0);
      });

      it('refuses a body of the other channel on the Instagram route (400) and stores nothing', async () => {
        const shop = await instance('ig-wrong-object');
        await linkInstagram(shop.key);
        const page = metaFixture('messenger', 'fb-text');
        const res = await postWebhook(t, 'instagram', page, { appSecret: IG_SECRET });
        assert.deepStrictEqual({ status: res.status, body: res.body }, {
          status: 400, body: { status: 400, error: { code: 'validation_failed', message: 'body is not an Instagram webhook notification' } },
        });
        await t.settle();
        assert.deepStrictEqual(await chatsOf(shop.key), { status: 200, data: [] });
      });

      it('stores Messenger texts and images under the PSID with provider messenger, named after the looked-up profile', async () => {
        const shop = await instance('fb-inbound');
        await linkMessenger(shop.key);
        fbGraph.on('GET', `/v26.0/${FB_USER}`, { status: 200, body: { name: 'Ana Lima', profile_pic: 'https://platform-lookaside.fbsbx.com/ana.jpg', id: FB_USER } });
        const text = await postWebhook(t, 'messenger', metaFixture('messenger', 'fb-text'), { appSecret: FB_SECRET });
        assert.deepStrictEqual({ status: text.status, body: text.body }, { status: 200, body: { received: 1 } });
        // The sender's profile is looked up after the answer (the webhook carries ids only) and kept in
        // the channel's state namespace (packages/meta-graph README, "Sender profiles").
        await t.waitFor(() => t.server.context.storage.state.get(`${shop.id}:meta:messenger:profiles`, FB_USER), 5000, 'the profile lookup');
        assert.deepStrictEqual(fbGraph.requests.map((r) => ({ method: r.method, path: r.path, query: r.query, authorization: r.headers.authorization })), [{
          method: 'GET', path: `/v26.0/${FB_USER}`, query: { fields: 'name,profile_pic', appsecret_proof: appSecretProof(FB_TOKEN, FB_SECRET) },
          authorization: `Bearer ${FB_TOKEN}`,
        }]);
        const image = await postWebhook(t, 'messenger', metaFixture('messenger', 'fb-image'), { appSecret: FB_SECRET });
        assert.deepStrictEqual({ status: image.status, body: image.body }, { status: 200, body: { received: 1 } });
        await t.settle();

        const chats = (await chatsOf(shop.key)).data;
        assert.deepStrictEqual(chats, [{ id: FB_USER, name: 'Ana Lima', timestamp: 1718000001, unreadCount: 2 }]);
        const page = await messagesOf(shop.key, FB_USER);
        assert.equal(page.total, 2);
        assert.deepStrictEqual(page.data, [
          {
            key: { remoteJid: FB_USER, fromMe: false, id: midOf('messenger', 'fb-image') },
            message: {
              imageMessage: {
                url: 'https://scontent.xx.fbcdn.net/v/t1.15752-9/448311222_1234567890_n.png?_nc_cat=1&ccb=1-7&oh=00_AYB&oe=66A0B1C2', mimetype: 'image/png',
              },
            },
            messageTimestamp: '1718000001', status: 'DELIVERY_ACK', provider: 'messenger', pushName: 'Ana Lima',
          },
          {
            key: { remoteJid: FB_USER, fromMe: false, id: midOf('messenger', 'fb-text') },
            message: { extendedTextMessage: { text: 'Hello, do you ship to Lisbon?' } },
            messageTimestamp: '1718000000', status: 'DELIVERY_ACK', provider: 'messenger',
          },
        ]);
        // The Instagram route does not take Page notifications, even correctly signed ones.
        const crossed = await postWebhook(t, 'instagram', metaFixture('messenger', 'fb-text'), { appSecret: FB_SECRET });
        assert.equal(crossed.status, 400);
      });

      it('moves sent messages along with Meta\'s echo, delivery and read webhooks', async () => {
        const shop = await instance('statuses');
        await linkInstagram(shop.key);
        await linkMessenger(shop.key);
        igGraph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: IG_USER, message_id: SENT_MID } });
        fbGraph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: FB_USER, message_id: FB_SENT_MID } });
        const api = t.client(shop.key);
        assert.equal((await api.call('sendText', { body: { to: IG_USER, text: 'Size M?', provider: 'instagram' } })).status, 200);
        assert.equal((await api.call('sendText', { body: { to: FB_USER, text: 'Yes, we do.', provider: 'messenger' } })).status, 200);

        // Meta's shapes: the echo of the Page's own message, then the user's delivery receipt;
        // Instagram's read receipt names the message it read.
        const echo = { object: 'page', entry: [{ id: FB_PAGE, time: 1718000010500, messaging: [{
          sender: { id: FB_PAGE }, recipient: { id: FB_USER }, timestamp: 1718000010000,
          message: { mid: FB_SENT_MID, is_echo: true, app_id: 1517776481860111, text: 'Yes, we do.' },
        }] }] };
        const delivery = { object: 'page', entry: [{ id: FB_PAGE, time: 1718000011500, messaging: [{
          sender: { id: FB_USER }, recipient: { id: FB_PAGE }, delivery: { mids: [FB_SENT_MID], watermark: 1718000011000 },
        }] }] };
        const read = { object: 'instagram', entry: [{ time: 1718000012500, id: IG_ACCOUNT, messaging: [{
          sender: { id: IG_USER }, recipient: { id: IG_ACCOUNT }, timestamp: 1718000012000, read: { mid: SENT_MID },
        }] }] };
        for (const [channel, body, secret] of [['messenger', echo, FB_SECRET], ['messenger', delivery, FB_SECRET], ['instagram', read, IG_SECRET]] as const) {
          const res = await postWebhook(t, channel, Buffer.from(JSON.stringify(body)), { appSecret: secret });
          assert.deepStrictEqual({ status: res.status, body: res.body }, { status: 200, body: { received: 1 } });
        }
        await t.settle();

        const fb = await messagesOf(shop.key, FB_USER);
        assert.equal(fb.total, 1);
        assert.deepStrictEqual({ key: fb.data[0]!.key, status: fb.data[0]!.status, provider: fb.data[0]!.provider, message: fb.data[0]!.message }, {
          key: { remoteJid: FB_USER, fromMe: true, id: FB_SENT_MID }, status: 'DELIVERY_ACK', provider: 'messenger',
          message: { extendedTextMessage: { text: 'Yes, we do.' } },
        });
        const ig = await messagesOf(shop.key, IG_USER);
        assert.equal(ig.total, 1);
        assert.deepStrictEqual({ key: ig.data[0]!.key, status: ig.data[0]!.status, provider: ig.data[0]!.provider }, {
          key: { remoteJid: IG_USER, fromMe: true, id: SENT_MID }, status: 'READ', provider: 'instagram',
        });
        const statuses = t.events.filter((e) => e.type === 'message.status' && e.instance === shop.id)
          .map((e) => e.type === 'message.status' && { provider: e.provider, id: e.messageId, status: e.status });
        assert.deepStrictEqual(statuses, [
          { provider: 'messenger', id: FB_SENT_MID, status: 'delivered' },
          { provider: 'instagram', id: SENT_MID, status: 'read' },
        ]);
      });

      it('documents both webhook routes in /openapi.json', async () => {
        const doc = (await t.client().call('openapi')) as { paths: Record<string, Record<string, { operationId: string }>> };
        assert.deepStrictEqual(
          ['/instagram/webhook', '/messenger/webhook'].map((path) => [doc.paths[path]?.get?.operationId, doc.paths[path]?.post?.operationId]),
          [['instagram_get_webhook', 'instagram_post_webhook'], ['messenger_get_webhook', 'messenger_post_webhook']],
        );
      });
    });

    describe('outbound sends', () => {
      it('sends a text with provider instagram as the exact Send API body and stores the PENDING record', async () => {
        const shop = await instance('ig-send');
        await linkInstagram(shop.key);
        igGraph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: IG_USER, message_id: SENT_MID } });
        const before = Math.floor(Date.now() / 1000);
        const res = await t.client(shop.key).call('sendText', { body: { to: IG_USER, text: 'Yes, in sizes S to L.', provider: 'instagram' } });
        const afterSend = Math.floor(Date.now() / 1000);

        assert.equal(res.status, 200, JSON.stringify(res));
        const timestamp = Number(res.data.messageTimestamp);
        assert.ok(timestamp >= before && timestamp <= afterSend, `messageTimestamp ${timestamp}`);
        const record = {
          key: { remoteJid: IG_USER, fromMe: true, id: SENT_MID },
          message: { extendedTextMessage: { text: 'Yes, in sizes S to L.' } },
          messageTimestamp: String(timestamp),
          status: 'PENDING',
          provider: 'instagram',
        };
        assert.deepStrictEqual(res, { status: 200, data: record });
        assert.deepStrictEqual(igGraph.requests.map((r) => ({ method: r.method, path: r.path, query: r.query, authorization: r.headers.authorization, json: r.json })), [{
          method: 'POST', path: '/v26.0/me/messages', query: { appsecret_proof: appSecretProof(IG_TOKEN, IG_SECRET) }, authorization: `Bearer ${IG_TOKEN}`,
          json: { recipient: { id: IG_USER }, message: { text: 'Yes, in sizes S to L.' } },
        }]);
        assert.equal(fbGraph.requests.length, 0);

        assert.deepStrictEqual(await messagesOf(shop.key, IG_USER), { status: 200, data: [record], page: 1, limit: 20, total: 1 });
        const chats = (await chatsOf(shop.key)).data;
        assert.deepStrictEqual(chats.map((c: { id: string }) => c.id), [IG_USER]);
      });

      it('sends a URL button template to Instagram', async () => {
        const shop = await instance('ig-buttons');
        await linkInstagram(shop.key);
        igGraph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: IG_USER, message_id: SENT_MID } });
        const res = await t.client(shop.key).call('sendButtonAction', {
          body: {
            to: IG_USER, provider: 'instagram', header: { title: 'Blue jacket' }, text: 'Back in stock.', footer: 'Parley Shop',
            buttons: [{ type: 'cta_url', text: 'Buy now', url: 'https://shop.example.com/jacket' }],
          },
        });
        assert.equal(res.status, 200, JSON.stringify(res));
        assert.deepStrictEqual(res.data.key, { remoteJid: IG_USER, fromMe: true, id: SENT_MID });
        assert.deepStrictEqual(res.data.message, {
          interactiveMessage: {
            header: { title: 'Blue jacket' }, body: { text: 'Back in stock.' }, footer: { text: 'Parley Shop' },
            buttons: [{ type: 'cta_url', text: 'Buy now', url: 'https://shop.example.com/jacket' }],
          },
        });
        assert.deepStrictEqual(igGraph.requests.map((r) => r.json), [{
          recipient: { id: IG_USER },
          message: {
            attachment: {
              type: 'template',
              payload: {
                template_type: 'button', text: 'Blue jacket\n\nBack in stock.\n\nParley Shop',
                buttons: [{ type: 'web_url', url: 'https://shop.example.com/jacket', title: 'Buy now' }],
              },
            },
          },
        }]);
      });

      it('sends an image by URL with provider messenger: attachment by URL, then the caption', async () => {
        const shop = await instance('fb-image-send');
        await linkMessenger(shop.key);
        const captionMid = `${FB_SENT_MID}-caption`;
        fbGraph.on('POST', '/v26.0/me/messages',
          { status: 200, body: { recipient_id: FB_USER, message_id: FB_SENT_MID } },
          { status: 200, body: { recipient_id: FB_USER, message_id: captionMid } });
        const url = images.url('/catalogue.png');
        const api = t.client(shop.key);
        const res = await api.call('sendImage', { body: { to: FB_USER, url, caption: 'Our summer catalogue', provider: 'messenger' } });

        assert.equal(res.status, 200, JSON.stringify(res));
        const record = {
          key: { remoteJid: FB_USER, fromMe: true, id: FB_SENT_MID },
          message: { imageMessage: { url, mimetype: 'image/png', caption: 'Our summer catalogue' } },
          messageTimestamp: res.data.messageTimestamp,
          status: 'PENDING',
          provider: 'messenger',
        };
        assert.deepStrictEqual(res, { status: 200, data: record });
        assert.deepStrictEqual(fbGraph.requests.map((r) => ({ path: r.path, authorization: r.headers.authorization, json: r.json })), [
          {
            path: '/v26.0/me/messages', authorization: `Bearer ${FB_TOKEN}`,
            json: { recipient: { id: FB_USER }, messaging_type: 'RESPONSE', message: { attachment: { type: 'image', payload: { url, is_reusable: true } } } },
          },
          {
            path: '/v26.0/me/messages', authorization: `Bearer ${FB_TOKEN}`,
            json: { recipient: { id: FB_USER }, messaging_type: 'RESPONSE', message: { text: 'Our summer catalogue' } },
          },
        ]);
        // The server fetched the image once (size and type checks) and serves its copy back.
        assert.deepStrictEqual(images.hits, ['/catalogue.png']);
        const media = await api.call('getMessageMedia', { params: { messageId: FB_SENT_MID }, query: { format: 'json' } });
        assert.deepStrictEqual(media, { status: 200, data: `data:image/png;base64,${PNG_PIXEL.toString('base64')}` });
        assert.deepStrictEqual(await messagesOf(shop.key, FB_USER), { status: 200, data: [record], page: 1, limit: 20, total: 1 });
        assert.equal(igGraph.requests.length, 0);
      });

      it('replies to and reacts on an inbound Messenger message through the Send API', async () => {
        const shop = await instance('fb-reply');
        await linkMessenger(shop.key);
        const inbound = midOf('messenger', 'fb-text');
        assert.deepStrictEqual((await postWebhook(t, 'messenger', metaFixture('messenger', 'fb-text'), { appSecret: FB_SECRET })).body, { received: 1 });
        await t.settle();
        fbGraph.reset();
        fbGraph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: FB_USER, message_id: FB_SENT_MID } });

        const api = t.client(shop.key);
        const reply = await api.call('replyText', { params: { messageId: inbound }, body: { to: FB_USER, text: 'Yes, 3 to 5 days.', provider: 'messenger' } });
        assert.equal(reply.status, 200, JSON.stringify(reply));
        assert.deepStrictEqual({ key: reply.data.key, message: reply.data.message, provider: reply.data.provider }, {
          key: { remoteJid: FB_USER, fromMe: true, id: FB_SENT_MID },
          message: { extendedTextMessage: { text: 'Yes, 3 to 5 days.', contextInfo: { stanzaId: inbound } } },
          provider: 'messenger',
        });
        // The reaction goes through the channel of the message reacted to (its record names it).
        const reaction = await api.call('sendReaction', { body: { msgId: inbound, text: '👍' } });
        assert.equal(reaction.status, 200, JSON.stringify(reaction));
        assert.deepStrictEqual({ key: reaction.data.key, message: reaction.data.message, provider: reaction.data.provider }, {
          key: { remoteJid: FB_USER, fromMe: true, id: `${inbound}-reaction` },
          message: { reactionMessage: { key: { remoteJid: FB_USER, fromMe: false, id: inbound }, text: '👍' } },
          provider: 'messenger',
        });
        // (The sender's background profile lookup is a GET of its own.)
        assert.deepStrictEqual(fbGraph.requests.filter((r) => r.method === 'POST').map((r) => r.json), [
          { recipient: { id: FB_USER }, messaging_type: 'RESPONSE', message: { text: 'Yes, 3 to 5 days.' }, reply_to: { mid: inbound } },
          { recipient: { id: FB_USER }, sender_action: 'react', payload: { message_id: inbound, reaction: '👍' } },
        ]);
        assert.equal((await messagesOf(shop.key, FB_USER)).total, 3);
      });

      it('answers 422 capability_not_supported for buttons Meta has no template for, before any Graph call', async () => {
        const shop = await instance('ig-copy');
        await linkInstagram(shop.key);
        const api = t.client(shop.key);
        await assert.rejects(api.call('sendButtonAction', {
          body: { to: IG_USER, provider: 'instagram', text: 'Your discount code', buttons: [{ type: 'cta_copy', text: 'Copy code', copy_code: 'SUMMER25' }] },
        }), apiErrorAnswer({
          status: 422,
          error: { code: 'capability_not_supported', message: 'instagram does not support cta_copy buttons: Meta\'s button template has no copy-code button; send the code as text' },
        }));
        await assert.rejects(api.call('sendButtonAction', {
          body: { to: IG_USER, provider: 'instagram', text: 'Talk to us', buttons: [{ type: 'cta_call', text: 'Call', phone_number: '+351 912 345 678' }] },
        }), apiErrorAnswer({
          status: 422,
          error: { code: 'capability_not_supported', message: 'instagram does not support cta_call buttons: Instagram button templates carry only cta_url buttons' },
        }));
        assert.equal(igGraph.requests.length, 0);
        assert.equal(await storedMessageCount(shop.id, IG_USER), 0);
        assert.deepStrictEqual(await chatsOf(shop.key), { status: 200, data: [] });
      });

      it('answers 409 channel_not_linked for a provider the instance has not linked', async () => {
        const shop = await instance('not-linked');
        await linkMessenger(shop.key);
        const api = t.client(shop.key);
        await assert.rejects(api.call('sendText', { body: { to: IG_USER, text: 'hello', provider: 'instagram' } }),
          apiErrorAnswer({ status: 409, error: { code: 'channel_not_linked', message: 'instagram is not linked to this instance' } }));
        await assert.rejects(api.call('sendImage', { body: { to: IG_USER, url: images.url('/x.png'), provider: 'instagram' } }), apiError(409, 'channel_not_linked'));
        // Refused before the media was fetched or anything was sent.
        assert.deepStrictEqual(images.hits, []);
        assert.equal(igGraph.requests.length + fbGraph.requests.length, 0);
        assert.deepStrictEqual(await chatsOf(shop.key), { status: 200, data: [] });
      });

      it('answers 502 with retryable details when the Graph API rate-limits a send, and stores nothing', async () => {
        const shop = await instance('ig-rate-limited');
        await linkInstagram(shop.key);
        igGraph.on('POST', '/v26.0/me/messages', {
          status: 400, body: { error: { message: 'Calls to this api have exceeded the rate limit.', type: 'OAuthException', code: 613, fbtrace_id: 'Bq7rate' } },
        });
        await assert.rejects(recorder.instance(shop.key).call('sendText', { body: { to: IG_USER, text: 'hello', provider: 'instagram' } }), apiErrorAnswer({
          status: 502,
          error: {
            code: 'upstream_error',
            message: 'Instagram Graph API rate limit reached (OAuthException 613): Calls to this api have exceeded the rate limit.; retry later',
            details: { retryable: true, upstreamCode: 613, kind: 'rate_limit', httpStatus: 400, type: 'OAuthException', fbtraceId: 'Bq7rate' },
          },
        }));
        assert.equal(recorder.last.status, 502);
        assert.ok(carriesNone(recorder.last.raw, [IG_TOKEN, IG_SECRET]));
        assert.equal(igGraph.requests.length, 1);
        assert.equal(await storedMessageCount(shop.id, IG_USER), 0);
        assert.deepStrictEqual(await chatsOf(shop.key), { status: 200, data: [] });
      });
    });

    // Runs after every test above (node:test runs a suite's tests in order): their links, refusals,
    // webhooks and sends were all logged at debug level by now.
    it('never logs an access token, app secret or verify token', () => {
      assert.ok(t.logs.length > 0);
      const leaks = t.logs.filter((line) => [IG_TOKEN, IG_SECRET, IG_VERIFY, FB_TOKEN, FB_SECRET, FB_VERIFY].some((secret) => line.includes(secret)));
      assert.deepStrictEqual(leaks, []);
    });
  });
}

describe('a social link across a restart (sqlite)', () => {
  it('restores the Instagram adapter from the stored link: handshake, webhooks, redelivery memory and sends', async () => {
    const graph = await startMockGraph();
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-social-'));
    const plugins: PluginEntry[] = [
      { package: '@parley/storage-sqlite' },
      { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
      { package: '@parley/channel-instagram', options: { graphBaseUrl: graph.url, profileLookup: false } },
    ];
    const body = metaFixture('instagram', 'ig-text');
    try {
      const first = await startTestServer({ dataDir, plugins });
      let shop: { id: string; key: string };
      let linkedAt: number;
      try {
        shop = await first.createInstance({ name: 'ig-restart' });
        graph.on('GET', `/v26.0/${IG_ACCOUNT}`, { status: 200, body: { id: IG_ACCOUNT, username: 'parley.shop' } });
        const linked = await first.client(shop.key).call('linkChannel', { params: { channel: 'instagram' }, body: IG_LINK });
        assert.equal(linked.status, 200);
        linkedAt = linked.data.linkedAt;
        const delivered = await postWebhook(first, 'instagram', body, { appSecret: IG_SECRET });
        assert.deepStrictEqual(delivered.body, { received: 1 });
        await first.settle();
      } finally {
        await first.stop();
      }

      const second = await startTestServer({ dataDir, plugins });
      try {
        const api = second.client(shop.key);
        assert.deepStrictEqual(await api.call('listLinks'), {
          status: 200, data: { instagram: { accountId: IG_ACCOUNT, username: 'parley.shop', linkedAt } },
        });
        const handshake = await second.request('GET', `/instagram/webhook?hub.mode=subscribe&hub.verify_token=${IG_VERIFY}&hub.challenge=31337`);
        assert.deepStrictEqual({ status: handshake.status, body: handshake.body }, { status: 200, body: '31337' });
        // Meta's retry of a delivery handled before the restart is still recognised.
        const redelivered = await postWebhook(second, 'instagram', body, { appSecret: IG_SECRET });
        assert.deepStrictEqual({ status: redelivered.status, body: redelivered.body }, { status: 200, body: { received: 0 } });
        await second.settle();
        const stored = await api.call('listChatMessages', { params: { jid: IG_USER } });
        assert.deepStrictEqual(stored.data.map((m) => m.key.id), [midOf('instagram', 'ig-text')]);

        graph.reset();
        graph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: IG_USER, message_id: SENT_MID } });
        const sent = await api.call('sendText', { body: { to: IG_USER, text: 'Welcome back', provider: 'instagram' } });
        assert.equal(sent.status, 200, JSON.stringify(sent));
        assert.deepStrictEqual(sent.data.key, { remoteJid: IG_USER, fromMe: true, id: SENT_MID });
        assert.deepStrictEqual(graph.requests.map((r) => ({ authorization: r.headers.authorization, json: r.json })), [{
          authorization: `Bearer ${IG_TOKEN}`, json: { recipient: { id: IG_USER }, message: { text: 'Welcome back' } },
        }]);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await graph.close();
    }
  });
});
