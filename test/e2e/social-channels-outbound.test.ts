import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type MockGraph } from '@parley/meta-graph/testing';
import { appSecretProof, metaFixture, PNG_PIXEL, postWebhook, type ImageServer } from '../support/meta-channels.js';
import type { AnswerRecorder } from '../support/answer-recorder.js';
import { apiError, apiErrorAnswer } from '../support/api-error.js';
import { IG_USER, IG_TOKEN, IG_SECRET, FB_USER, FB_TOKEN, FB_SECRET, SENT_MID, FB_SENT_MID, midOf, carriesNone, SocialServer } from '../support/social-server.js';
import type { TestServer } from '../support/test-server.js';

// Sends through the Instagram and Messenger channels: the exact Send API bodies, refusals and Graph failures.
for (const storage of ['memory', 'sqlite'] as const) {
  describe(`instagram and messenger through the server (${storage})`, () => {
    const s = new SocialServer(storage);
    const { instance, linkInstagram, linkMessenger, chatsOf, messagesOf, storedMessageCount } = s;
    let t: TestServer;
    let recorder: AnswerRecorder;
    let igGraph: MockGraph;
    let fbGraph: MockGraph;
    let images: ImageServer;
    before(() => ({ t, recorder, igGraph, fbGraph, images } = s));

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

      it('a send the Graph API rate-limits is kept in the outbound queue and tried again after the backoff (issue 16)', async () => {
        const shop = await instance('ig-rate-limited');
        await linkInstagram(shop.key);
        igGraph.on('POST', '/v26.0/me/messages', {
          status: 400, body: { error: { message: 'Calls to this api have exceeded the rate limit.', type: 'OAuthException', code: 613, fbtrace_id: 'Bq7rate' } },
        });
        const res = await recorder.instance(shop.key).call('sendText', { body: { to: IG_USER, text: 'hello', provider: 'instagram' } });
        assert.equal(res.status, 200, JSON.stringify(res));
        assert.equal(res.data.status, 'PENDING');
        const queue = (res.data as { queue?: { state: string; dueAt: string } }).queue;
        assert.equal(queue?.state, 'scheduled');
        // The first retry is 2 s after the refusal (docs/queue.md).
        const wait = Date.parse(queue!.dueAt) - Date.now();
        assert.ok(wait > 0 && wait <= 2_000, `retry in ${wait} ms`);
        assert.ok(carriesNone(recorder.last.raw, [IG_TOKEN, IG_SECRET]));
        assert.equal(igGraph.requests.length, 1);
        // Not sent yet: nothing stored but the queued send.
        assert.equal(await storedMessageCount(shop.id, IG_USER), 0);
        assert.deepStrictEqual(await chatsOf(shop.key), { status: 200, data: [] });
        assert.equal((await t.request('DELETE', `/${shop.key}/queue/${res.data.key.id}`)).status, 200);
      });
    });

    s.itNeverLogsSecrets();
  });
}
