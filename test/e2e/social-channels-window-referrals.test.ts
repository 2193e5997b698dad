import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { metaFixture, postWebhook } from '../support/meta-channels.js';
import { FB_SECRET, FB_USER, SocialServer } from '../support/social-server.js';

const MID = 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN';

// Messenger's 24-hour window and ad attribution through the real server (issue 25, defects 9 and 10).
describe('messenger window and referrals through the server', () => {
  const s = new SocialServer('sqlite');
  let hooks: HttpReceiver;
  before(async () => {
    hooks = await startHttpReceiver();
  });
  after(() => hooks.close());

  it('answers a send past the 24-hour window with 422 outside_window (code 10, subcode 2018278), tried once, not a permission error', async () => {
    const { t, fbGraph } = s;
    const shop = await s.instance('fb-window');
    await s.linkMessenger(shop.key);
    fbGraph.on('POST', '/v26.0/me/messages', {
      status: 400, body: { error: { message: '(#10) This message is sent outside of allowed window.', type: 'OAuthException', code: 10, error_subcode: 2018278, fbtrace_id: 'AWin' } },
    });
    const res = await t.request('POST', `/${shop.key}/message/text`, { to: FB_USER, text: 'Your order shipped', provider: 'messenger' });
    assert.deepStrictEqual({ status: res.status, body: res.body }, { status: 422, body: {
      status: 422,
      error: {
        code: 'outside_window',
        message: 'Messenger does not deliver messages to this user now: more than 24 hours have passed since the user last wrote '
          + '(10/2018278: (#10) This message is sent outside of allowed window.); the conversation opens again when the user writes',
        details: { upstreamCode: 10, subcode: 2018278, fbtraceId: 'AWin', retryable: false },
      },
    } });
    // A closed window does not open by retrying: one Graph call, nothing queued or stored.
    assert.equal(fbGraph.requests.length, 1);
    assert.deepStrictEqual((await t.client(shop.key).call('listQueue')).data, []);
    assert.equal(await s.storedMessageCount(shop.id, FB_USER), 0);
  });

  it('reports a delayed send the window refuses as failed with the Cloud API\'s 131047 (re-engagement message)', async () => {
    const { t, fbGraph } = s;
    const shop = await s.instance('fb-window-delayed');
    await s.linkMessenger(shop.key);
    fbGraph.on('POST', '/v26.0/me/messages', {
      status: 400, body: { error: { message: '(#10) This message is sent outside of allowed window.', type: 'OAuthException', code: 10, error_subcode: 2018278 } },
    });
    const res = await t.client(shop.key).call('sendText', { body: { to: FB_USER, text: 'Reminder', provider: 'messenger', delay: 50 } });
    const id = res.data.key.id;
    const failed = await t.waitFor(() => t.events.find((e) => e.type === 'message.status' && e.messageId === id && e.status === 'failed'), 5000, 'the failed status');
    assert.ok(failed.type === 'message.status' && failed.error);
    assert.deepStrictEqual({ code: failed.error.code, title: failed.error.title, details: failed.error.details }, {
      code: 131047, title: 'Re-engagement message', details: 'outside_window',
    });
    assert.equal(fbGraph.requests.length, 1);
  });

  it('delivers the ad a user came through (messaging_referrals) on the next message\'s meta webhook, with its ref', async () => {
    const { t } = s;
    const shop = await s.instance('fb-referral', { allowWebhook: true, webhookFormat: 'meta', webhookMessage: `${hooks.url}/fb-referral` });
    await s.linkMessenger(shop.key);
    for (const name of ['fb-referral-ad', 'fb-referral-text']) {
      const answer = await postWebhook(t, 'messenger', metaFixture('messenger', name), { appSecret: FB_SECRET });
      assert.equal(answer.status, 200);
    }
    const hook = await t.waitFor(() => hooks.requests.find((r) => r.url === '/fb-referral'), 5000, 'the message webhook');
    const value = (hook.json as { entry: { changes: { value: { messages: unknown[] } }[] }[] }).entry[0]!.changes[0]!.value;
    assert.deepStrictEqual(value.messages, [{
      from: FB_USER, id: `${MID}1A`, timestamp: '1718000011', type: 'text', from_me: false, from_user_id: FB_USER,
      referral: {
        source_id: '23851234567890123', source_type: 'ad', headline: 'Winter jackets -30%', media_type: 'image',
        thumbnail_url: 'https://scontent.xx.fbcdn.net/v/t45.1600-4/ad-winter.jpg', ref: 'winter-sale',
      },
      text: { body: 'Is the blue one in stock?' },
    }]);
  });
});
