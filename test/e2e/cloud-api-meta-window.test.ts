import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { metaFixture, postWebhook } from '../support/meta-channels.js';
import { FB_SECRET, FB_USER, midOf, SocialServer } from '../support/social-server.js';

/**
 * The Cloud API surface on an instance with Messenger linked: a reply to a Messenger message goes
 * through Messenger, and when Meta refuses it because the user's 24-hour window is closed it answers
 * the Cloud API's own code for that, 131047 (re-engagement message).
 */
describe('Cloud API replies through a linked Messenger page', () => {
  const s = new SocialServer('sqlite');

  it('a reply past the 24-hour window answers 131047 (re-engagement message), tried once, nothing queued', async () => {
    const shop = await s.instance('cloud-window');
    await s.linkMessenger(shop.key);
    assert.equal((await postWebhook(s.t, 'messenger', metaFixture('messenger', 'fb-text'), { appSecret: FB_SECRET })).status, 200);
    const mid = midOf('messenger', 'fb-text');
    await s.t.waitFor(async () => (await s.t.client(shop.key).call('getMessage', { params: { messageId: mid } })).status === 200, 5000, 'the Messenger message stored');
    s.fbGraph.on('POST', '/v26.0/me/messages', {
      status: 400, body: { error: { message: '(#10) This message is sent outside of allowed window.', type: 'OAuthException', code: 10, error_subcode: 2018278, fbtrace_id: 'AWin' } },
    });
    const res = await cloudRequest(s.t, shop.key, 'POST', `/${CLOUD_VERSION}/${shop.id}/messages`, { messaging_product: 'whatsapp', to: FB_USER, context: { message_id: mid }, type: 'text', text: { body: 'Your order shipped' } });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.deepEqual([res.body.error.code, res.body.error.message], [131047, '(#131047) Re-engagement message']);
    assert.match(res.body.error.error_data.details, /more than 24 hours have passed since the user last wrote/);
    assert.equal(s.fbGraph.requests.filter((r) => r.method === 'POST' && r.path === '/v26.0/me/messages').length, 1, 'tried once');
    assert.deepEqual((await s.t.client(shop.key).call('listQueue')).data, []);
  });
});
