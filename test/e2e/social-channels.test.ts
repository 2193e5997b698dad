import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { ParleyApiError } from '@parley/client';
import type { PluginEntry } from '@parley/server';
import { startMockGraph, type MockGraph } from '@parley/meta-graph/testing';
import { appSecretProof, metaFixture, postWebhook } from '../support/meta-channels.js';
import type { AnswerRecorder } from '../support/answer-recorder.js';
import { apiError, apiErrorAnswer, fieldError } from '../support/api-error.js';
import { IG_ACCOUNT, IG_USER, IG_TOKEN, IG_SECRET, IG_VERIFY, FB_PAGE, FB_TOKEN, FB_SECRET, FB_VERIFY, SENT_MID, IG_LINK, FB_LINK, midOf, carriesNone, SocialServer } from '../support/social-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// Linking Instagram and Messenger accounts; inbound webhooks and sends are in social-channels-inbound/-outbound.
for (const storage of ['memory', 'sqlite'] as const) {
  describe(`instagram and messenger through the server (${storage})`, () => {
    const s = new SocialServer(storage);
    const { instance, linkInstagram, link, linksOf, chatsOf, adminView } = s;
    let t: TestServer;
    let recorder: AnswerRecorder;
    let igGraph: MockGraph;
    let fbGraph: MockGraph;
    before(() => ({ t, recorder, igGraph, fbGraph } = s));

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
        await assert.rejects(link(shop.key, 'instagram', IG_LINK), apiErrorAnswer(fieldError(
          'body.accessToken was rejected: Instagram access token is invalid or expired (OAuthException 190): '
            + 'Error validating access token: Session has expired.; link the account again with a valid token',
          { retryable: false, upstreamCode: 190, kind: 'token', httpStatus: 400, subcode: 463, type: 'OAuthException', fbtraceId: 'AqE2Efbtrace', field: 'body.accessToken' },
        )));
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
        await assert.rejects(link(shop.key, 'messenger', FB_LINK), apiErrorAnswer(fieldError(
          `body.accountId ${FB_PAGE} does not match the Messenger account of the access token (999000111222333)`, { field: 'body.accountId' },
        )));
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
        await assert.rejects(link(shop.key, 'instagram', { ...IG_LINK, accessToken: 'two words' }), apiErrorAnswer(fieldError('body.accessToken must be a single token of at most 2048 characters', { field: 'body.accessToken' })));
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

        await assert.rejects(unlink(), apiErrorAnswer(fieldError('path.channel: instagram is not linked')));
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

    s.itNeverLogsSecrets();
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
