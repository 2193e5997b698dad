import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOUD_VERSION, cloudErrorOf, cloudRequest } from '../support/cloud-api.js';
import { metaFixture, postWebhook } from '../support/meta-channels.js';
import { FB_SECRET, FB_USER, midOf, SocialServer } from '../support/social-server.js';

/**
 * The Cloud API surface on an instance with Messenger linked: a reply to a Messenger message goes
 * through Messenger, and Messenger's refusals answer the Cloud API's own codes: its 24-hour window
 * closed 131047 (re-engagement message), a type it cannot carry 131051 (unsupported message type),
 * its API failing 131000 (something went wrong).
 */
describe('Cloud API replies through a linked Messenger page', () => {
  const s = new SocialServer('sqlite');
  const SEND = '/v26.0/me/messages';

  /** An instance with Messenger linked and a Messenger message received, and a Cloud API reply to that message. */
  async function messengerShop(name: string) {
    const shop = await s.instance(name);
    await s.linkMessenger(shop.key);
    assert.equal((await postWebhook(s.t, 'messenger', metaFixture('messenger', 'fb-text'), { appSecret: FB_SECRET })).status, 200);
    const mid = midOf('messenger', 'fb-text');
    await s.t.waitFor(async () => (await s.t.client(shop.key).call('getMessage', { params: { messageId: mid } })).status === 200, 5000, 'the Messenger message stored');
    const reply = (body: Record<string, unknown>) => cloudRequest(s.t, shop.key, 'POST', `/${CLOUD_VERSION}/${shop.id}/messages`, { messaging_product: 'whatsapp', to: FB_USER, context: { message_id: mid }, ...body });
    const queued = async () => (await s.t.client(shop.key).call('listQueue')).data;
    return { reply, queued };
  }

  it('a reply past the 24-hour window answers 131047 (re-engagement message), tried once, nothing queued', async () => {
    const shop = await messengerShop('cloud-window');
    s.fbGraph.on('POST', SEND, {
      status: 400, body: { error: { message: '(#10) This message is sent outside of allowed window.', type: 'OAuthException', code: 10, error_subcode: 2018278, fbtrace_id: 'AWin' } },
    });
    const res = await shop.reply({ type: 'text', text: { body: 'Your order shipped' } });
    const [status, code, , title, details] = cloudErrorOf(res);
    assert.deepEqual([status, code, title], [422, 131047, '(#131047) Re-engagement message']);
    assert.match(details, /more than 24 hours have passed since the user last wrote/);
    assert.equal(s.fbGraph.requests.filter((r) => r.method === 'POST' && r.path === SEND).length, 1, 'tried once');
    assert.deepEqual(await shop.queued(), []);
  });

  it('a type Messenger cannot carry answers 131051 (unsupported message type): nothing sent, nothing queued', async () => {
    const shop = await messengerShop('cloud-unsupported');
    for (const body of [
      { type: 'location', location: { latitude: -23.55, longitude: -46.63, name: 'Loja' } },
      { type: 'contacts', contacts: [{ name: { formatted_name: 'Ana' }, phones: [{ wa_id: '5511900000001' }] }] },
    ]) {
      const [status, code, , title, details] = cloudErrorOf(await shop.reply(body));
      assert.deepEqual([status, code, title], [422, 131051, '(#131051) Unsupported message type'], body.type);
      assert.match(details, /messenger/i, details);
    }
    assert.equal(s.fbGraph.requests.filter((r) => r.method === 'POST').length, 0);
    assert.deepEqual(await shop.queued(), []);
  });

  it('Messenger\'s API accepting a send without answering its message id answers 131000 (something went wrong)', async () => {
    const shop = await messengerShop('cloud-upstream');
    s.fbGraph.on('POST', SEND, { status: 200, body: { recipient_id: FB_USER } });
    const [status, code, , title, details] = cloudErrorOf(await shop.reply({ type: 'text', text: { body: 'Your order shipped' } }));
    assert.deepEqual([status, code, title, details], [502, 131000, '(#131000) Something went wrong', 'Messenger Graph API accepted the message without answering its message_id']);
  });
});
