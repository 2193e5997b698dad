import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deliverText, jidOf, phone, startWithPhones, type Phone } from '../support/conversation.js';
import type { TestServer } from '../support/test-server.js';

const ALICE = '5511940000001';
const BOB = '5511940000002';

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`actions (spec 4.8, ${storage})`, () => {
    let t: TestServer;
    let alice: Phone;
    let bob: Phone;

    before(async () => {
      ({ t, phones: { alice, bob } } = await startWithPhones({ alice: ALICE, bob: BOB }, { storage }));
    });
    after(() => t.stop());

    it('answers whether a number has an account', async () => {
      assert.deepEqual((await t.request('GET', `/${alice.key}/actions/registered?number=${BOB}`)).body, {
        status: 200, registered: true, jid: jidOf(BOB),
      });
      assert.deepEqual((await t.request('GET', `/${alice.key}/actions/registered?number=%2B${BOB}`)).body, {
        status: 200, registered: true, jid: jidOf(BOB),
      });
      assert.deepEqual((await t.request('GET', `/${alice.key}/actions/registered?number=5511940009999`)).body, { status: 200, registered: false });
    });

    it('forgets a number whose instance was deleted', async () => {
      const carol = await phone(t, 'carol', '5511940000003');
      assert.equal((await t.request('GET', `/${alice.key}/actions/registered?number=5511940000003`)).body.registered, true);
      assert.equal((await t.admin('DELETE', `/admin/instances/${carol.id}`)).status, 200);
      assert.deepEqual((await t.request('GET', `/${alice.key}/actions/registered?number=5511940000003`)).body, { status: 200, registered: false });
    });

    it('rejects a bad number', async () => {
      for (const [query, message] of [
        ['', 'query.number is required'],
        ['?number=abc', 'query.number must match pattern "^\\+?\\d{6,15}$"'],
        ['?number=123', 'query.number must match pattern "^\\+?\\d{6,15}$"'],
        [`?number=${BOB}&extra=1`, 'query.extra is not allowed'],
      ] as const) {
        const res = await t.request('GET', `/${alice.key}/actions/registered${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.message, message);
      }
    });

    it('wipes the stored messages, chats and contacts of one instance only', async () => {
      await deliverText(t, alice, bob, 'one');
      await deliverText(t, bob, alice, 'two');
      assert.equal((await t.request('GET', `/${bob.key}/chat`)).body.data.length, 1);
      assert.equal((await t.request('GET', `/${bob.key}/contacts`)).body.data.length, 1);
      assert.equal((await t.request('GET', `/${bob.key}/chat/${ALICE}/messages`)).body.total, 2);

      const res = await t.request('DELETE', `/${bob.key}/actions/storage`);
      assert.deepEqual(res.body, { status: 200, message: 'Stored messages, chats, contacts and media deleted' });
      assert.deepEqual((await t.request('GET', `/${bob.key}/chat`)).body.data, []);
      assert.deepEqual((await t.request('GET', `/${bob.key}/contacts`)).body.data, []);
      const messages = await t.request('GET', `/${bob.key}/chat/${ALICE}/messages`);
      assert.deepEqual({ data: messages.body.data, total: messages.body.total }, { data: [], total: 0 });

      // The peer keeps its own history, and new traffic fills the wiped instance again.
      assert.equal((await t.request('GET', `/${alice.key}/chat/${BOB}/messages`)).body.total, 2);
      await deliverText(t, alice, bob, 'three');
      const after = await t.request('GET', `/${bob.key}/chat/${ALICE}/messages`);
      assert.deepEqual(after.body.data.map((m: { message: unknown }) => m.message), [{ extendedTextMessage: { text: 'three' } }]);
    });

    it('answers 409 for registered while not connected; wiping works offline', async () => {
      assert.equal((await t.request('DELETE', `/${alice.key}/instance`)).status, 200);
      const res = await t.request('GET', `/${alice.key}/actions/registered?number=${BOB}`);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'not_connected');
      assert.equal((await t.request('DELETE', `/${alice.key}/actions/storage`)).status, 200);
      assert.deepEqual((await t.request('GET', `/${alice.key}/chat`)).body.data, []);
    });
  });
}
