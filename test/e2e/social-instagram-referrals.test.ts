import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { metaFixture, postWebhook } from '../support/meta-channels.js';
import { IG_SECRET, IG_USER, SocialServer } from '../support/social-server.js';

const MID = 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQxNDA1ODIyMzA0OTE0OjM0MDI4MjM2Njg0MTcxMDMwMTI0NDI1ODE4NzUxOTk3OTcyODI5MjozMTg0NzQ2NjUwMzA0OTM0NTkzNjU4NDQwNjE4ODg4NTc2MAZD';

// Instagram's side of issue 25, defect 9, through the real server: an ig.me link's referral and the handover
// protocol's standby channel, as Meta delivers them to an Instagram professional account's webhook.
describe('instagram referrals and standby through the server', () => {
  const s = new SocialServer('sqlite');
  let hooks: HttpReceiver;
  before(async () => {
    hooks = await startHttpReceiver();
  });
  after(() => hooks.close());

  it('gives the user\'s next message the ig.me link\'s referral (messaging_referrals) on the meta webhook, with its ref', async () => {
    const { t } = s;
    const shop = await s.instance('ig-referral', { allowWebhook: true, webhookFormat: 'meta', webhookMessage: `${hooks.url}/ig-referral` });
    await s.linkInstagram(shop.key);
    for (const name of ['ig-referral-link', 'ig-referral-text']) {
      assert.equal((await postWebhook(t, 'instagram', metaFixture('instagram', name), { appSecret: IG_SECRET })).status, 200);
    }
    const hook = await t.waitFor(() => hooks.requests.find((r) => r.url === '/ig-referral'), 5000, 'the message webhook');
    const value = (hook.json as { entry: { changes: { value: { messages: unknown[] } }[] }[] }).entry[0]!.changes[0]!.value;
    assert.deepStrictEqual(value.messages, [{
      from: IG_USER, id: `${MID}RA`, timestamp: '1718000031', type: 'text', from_me: false, from_user_id: IG_USER,
      referral: { source_type: 'shortlink', ref: 'spring-sale' },
      text: { body: 'Do you ship to Recife?' },
    }]);
    assert.equal(hooks.requests.filter((r) => r.url === '/ig-referral').length, 1, 'the referral alone makes no webhook');
  });

  it('stores and reports a message of the standby channel (a conversation another app owns) once, like any other', async () => {
    const { t } = s;
    const shop = await s.instance('ig-standby', { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${hooks.url}/ig-standby` });
    await s.linkInstagram(shop.key);
    for (let i = 0; i < 2; i++) {
      assert.equal((await postWebhook(t, 'instagram', metaFixture('instagram', 'ig-standby'), { appSecret: IG_SECRET })).status, 200);
    }
    const hook = await t.waitFor(() => hooks.requests.find((r) => r.url === '/ig-standby'), 5000, 'the message webhook');
    const body = hook.json as { type: string; data: { message: { id: string; content: unknown } } };
    assert.deepStrictEqual([body.type, body.data.message.id, body.data.message.content], ['message', `${MID}SB`, { type: 'text', body: 'Anyone there?' }]);
    const stored = await t.client(shop.key).call('getMessage', { params: { messageId: `${MID}SB` } });
    assert.equal(stored.data.key.fromMe, false);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(hooks.requests.filter((r) => r.url === '/ig-standby').length, 1, 'Meta\'s second delivery is not a second message');
  });
});
