import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiError } from '../support/api-error.js';
import { deliverText, jidOf, phone, startWithPhones, type Phone } from '../support/conversation.js';
import type { TestServer } from '../support/test-server.js';
import { sealed, secretMarked } from '../support/message-secret.js';

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

    const registered = (p: Phone, number: string) => t.client(p.key).call('isRegistered', { query: { number } });
    const chats = async (p: Phone) => (await t.client(p.key).call('listChats')).data;
    const contacts = async (p: Phone) => (await t.client(p.key).call('listContacts')).data;
    const messages = (p: Phone, jid: string) => t.client(p.key).call('listChatMessages', { params: { jid } });

    it('answers whether a number has an account', async () => {
      assert.deepEqual(await registered(alice, BOB), {
        status: 200, registered: true, jid: jidOf(BOB),
      });
      assert.deepEqual(await registered(alice, `+${BOB}`), {
        status: 200, registered: true, jid: jidOf(BOB),
      });
      assert.deepEqual(await registered(alice, '5511940009999'), { status: 200, registered: false });
    });

    it('forgets a number whose instance was deleted', async () => {
      const carol = await phone(t, 'carol', '5511940000003');
      assert.equal((await registered(alice, '5511940000003')).registered, true);
      assert.equal((await t.client().call('adminDeleteInstance', { params: { key: carol.id } })).status, 200);
      assert.deepEqual(await registered(alice, '5511940000003'), { status: 200, registered: false });
    });

    it('rejects a bad number', async () => {
      // A missing member and an unknown one, refused by the typed client at compile time: sent raw.
      for (const [query, message] of [
        ['', 'query.number is required'],
        [`?number=${BOB}&extra=1`, 'query.extra is not allowed'],
      ] as const) {
        const res = await t.request('GET', `/${alice.key}/actions/registered${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.message, message);
      }
      for (const number of ['abc', '123']) {
        await assert.rejects(registered(alice, number), apiError(400, 'validation_failed', 'query.number must match pattern "^\\+?\\d{6,15}$"'), number);
      }
    });

    it('wipes the stored messages, chats and contacts of one instance only', async () => {
      await deliverText(t, alice, bob, 'one');
      await deliverText(t, bob, alice, 'two');
      assert.equal((await chats(bob)).length, 1);
      assert.equal((await contacts(bob)).length, 1);
      assert.equal((await messages(bob, ALICE)).total, 2);

      const res = await t.client(bob.key).call('clearStorage');
      assert.deepEqual(res, { status: 200, message: 'Stored messages, chats, contacts and media deleted' });
      assert.deepEqual(await chats(bob), []);
      assert.deepEqual(await contacts(bob), []);
      const wiped = await messages(bob, ALICE);
      assert.deepEqual({ data: wiped.data, total: wiped.total }, { data: [], total: 0 });

      // The peer keeps its own history, and new traffic fills the wiped instance again.
      assert.equal((await messages(alice, BOB)).total, 2);
      await deliverText(t, alice, bob, 'three');
      const after = await messages(bob, ALICE);
      assert.deepEqual(after.data.map((m) => secretMarked(m.message)), [sealed({ extendedTextMessage: { text: 'three' } })]);
    });

    it('answers 409 for registered while not connected; wiping works offline', async () => {
      assert.equal((await t.client(alice.key).call('logoutInstance')).status, 200);
      await assert.rejects(registered(alice, BOB), apiError(409, 'not_connected'));
      assert.equal((await t.client(alice.key).call('clearStorage')).status, 200);
      assert.deepEqual(await chats(alice), []);
    });
  });
}
