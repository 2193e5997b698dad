import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { signatureHeader, type MockGraph } from '@parley/meta-graph/testing';
import { appSecretProof, metaFixture, postWebhook, type ImageServer } from '../support/meta-channels.js';
import { IG_ACCOUNT, IG_USER, IG_SECRET, IG_VERIFY, FB_PAGE, FB_USER, FB_TOKEN, FB_SECRET, SENT_MID, FB_SENT_MID, midOf, SocialServer } from '../support/social-server.js';
import type { TestServer } from '../support/test-server.js';

// Meta's webhooks through the server: handshake, signatures, storage, statuses.
for (const storage of ['memory', 'sqlite'] as const) {
  describe(`instagram and messenger through the server (${storage})`, () => {
    const s = new SocialServer(storage);
    const { instance, linkInstagram, linkMessenger, chatsOf, messagesOf, storedMessageCount } = s;
    let t: TestServer;
    let igGraph: MockGraph;
    let fbGraph: MockGraph;
    let images: ImageServer;
    before(() => ({ t, igGraph, fbGraph, images } = s));

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
        assert.deepStrictEqual({ status: mismatched.status, body: mismatched.body }, { status: 200, body: { received: 0 } });

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

      it('answers a missing signature 401, and a foreign or stale one as an unlinked account\'s notification; stores nothing', async () => {
        const shop = await instance('ig-forged');
        await linkInstagram(shop.key);
        const body = metaFixture('instagram', 'ig-text');
        const missing = await postWebhook(t, 'instagram', body, {});
        assert.deepStrictEqual({ status: missing.status, body: missing.body }, {
          status: 401, body: { status: 401, error: { code: 'unauthorized', message: 'missing x-hub-signature-256 header' } },
        });

        // The answer to a badly signed notification must not tell which account ids are linked: the
        // same notification naming an account no instance links is the reference.
        const unlinkedBody = Buffer.from(body.toString('utf8').replaceAll(IG_ACCOUNT, '17841400000000999'));
        const unlinked = await postWebhook(t, 'instagram', unlinkedBody, { appSecret: 'some-other-app-secret-000000000' });
        const dropped = { status: 200, body: { received: 0 } };
        assert.deepStrictEqual({ status: unlinked.status, body: unlinked.body }, dropped);
        const foreign = await postWebhook(t, 'instagram', body, { appSecret: 'some-other-app-secret-000000000' });
        assert.deepStrictEqual({ status: foreign.status, body: foreign.body }, dropped);
        // A body changed after signing: the signature of the original does not cover it.
        const original = metaFixture('instagram', 'ig-text');
        const tampered = Buffer.from(original.toString('utf8').replace('blue jacket', 'red jacket'));
        const stale = await postWebhook(t, 'instagram', tampered, { header: signatureHeader(original, IG_SECRET) });
        assert.deepStrictEqual({ status: stale.status, body: stale.body }, dropped);
        const garbage = await postWebhook(t, 'instagram', body, { header: 'sha1=abc' });
        assert.deepStrictEqual({ status: garbage.status, body: garbage.body }, dropped);
        // The operator sees them (a wrong app secret would show here), at most a line a second.
        const dropLines = () => t.logs.join('').split('\n').filter((l) => l.includes('invalid x-hub-signature-256 signature dropped'));
        for (let i = 0; i < 60 && dropLines().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
        const line = JSON.parse(dropLines()[0]!) as Record<string, unknown>;
        assert.deepStrictEqual([line.level, line.channel, line.accounts, line.linked], [40, 'instagram', [IG_ACCOUNT], 1]);

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
        // The echo of the API's own send is its sent status (as on WhatsApp), not a from-me message.
        assert.deepStrictEqual(statuses, [
          { provider: 'messenger', id: FB_SENT_MID, status: 'sent' },
          { provider: 'messenger', id: FB_SENT_MID, status: 'delivered' },
          { provider: 'instagram', id: SENT_MID, status: 'read' },
        ]);
        assert.equal(t.events.filter((e) => e.type === 'message' && e.instance === shop.id).length, 0);
      });

      it('documents both webhook routes in /openapi.json', async () => {
        const doc = (await t.client().call('openapi')) as { paths: Record<string, Record<string, { operationId: string }>> };
        assert.deepStrictEqual(
          ['/instagram/webhook', '/messenger/webhook'].map((path) => [doc.paths[path]?.get?.operationId, doc.paths[path]?.post?.operationId]),
          [['instagram_get_webhook', 'instagram_post_webhook'], ['messenger_get_webhook', 'messenger_post_webhook']],
        );
      });
    });

    s.itNeverLogsSecrets();
  });
}
