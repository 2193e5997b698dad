import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deliverText, eventsOf, jidOf, phone, startWithPhones, type Phone } from '../support/conversation.js';
import type { TestServer } from '../support/test-server.js';

const PRIVACY = {
  readreceipts: 'all', profile: 'all', status: 'contacts', online: 'all', last: 'all', groupadd: 'all', calladd: 'all', messages: 'all',
};

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`chats (spec 4.5, ${storage})`, () => {
    let t: TestServer;
    let alice: Phone;
    let bob: Phone;
    const ALICE = '5511910000001';
    const BOB = '5511910000002';

    before(async () => {
      ({ t, phones: { alice, bob } } = await startWithPhones({ alice: ALICE, bob: BOB }, { storage }));
    });
    after(() => t.stop());

    const chatOf = async (p: Phone, jid: string) => (await t.request('GET', `/${p.key}/chat`)).body.data.find((c: { id: string }) => c.id === jid);

    it('lists chats with the spec 2.5 fields', async () => {
      const startedAt = Math.floor(Date.now() / 1000);
      await deliverText(t, alice, bob, 'first');
      const res = await t.request('GET', `/${bob.key}/chat`);
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 200);
      assert.equal(res.body.data.length, 1);
      const { timestamp, ...chat } = res.body.data[0];
      assert.deepEqual(chat, { id: jidOf(ALICE), name: 'alice', unreadCount: 1 });
      assert.ok(Number.isInteger(timestamp) && timestamp >= startedAt && timestamp <= Math.floor(Date.now() / 1000));
    });

    it('marks a chat read: unreadCount 0, incoming records READ, the sender record reaches READ', async () => {
      const second = await deliverText(t, alice, bob, 'second');
      assert.equal((await chatOf(bob, jidOf(ALICE))).unreadCount, 2);
      const res = await t.request('PATCH', `/${bob.key}/chat/${ALICE}?action=markRead&value=true`);
      assert.equal(res.status, 200);
      const { timestamp, ...chat } = res.body.data;
      assert.deepEqual({ status: res.body.status, chat }, { status: 200, chat: { id: jidOf(ALICE), name: 'alice', unreadCount: 0 } });
      assert.equal(typeof timestamp, 'number');
      assert.equal((await chatOf(bob, jidOf(ALICE))).unreadCount, 0);
      const inbox = await t.request('GET', `/${bob.key}/chat/${ALICE}/messages`);
      assert.deepEqual(inbox.body.data.map((m: { status: string }) => m.status), ['READ', 'READ']);
      await t.waitFor(async () => {
        const sent = await t.request('GET', `/${alice.key}/chat/${BOB}/messages`);
        return sent.body.data.every((m: { status: string }) => m.status === 'READ');
      }, 5000, 'the sender records to reach READ');
      const reads = eventsOf(t, alice.id, 'message.status').filter((e) => e.status === 'read').map((e) => e.messageId);
      assert.ok(reads.includes(second));
    });

    it('marks a chat unread without touching the read records', async () => {
      const res = await t.request('PATCH', `/${bob.key}/chat/${jidOf(ALICE)}?action=markRead&value=false`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.unreadCount, 1);
      assert.equal((await chatOf(bob, jidOf(ALICE))).unreadCount, 1);
      const inbox = await t.request('GET', `/${bob.key}/chat/${ALICE}/messages`);
      assert.deepEqual(inbox.body.data.map((m: { status: string }) => m.status), ['READ', 'READ']);
    });

    it('pins and unpins a chat', async () => {
      const pinned = await t.request('PATCH', `/${bob.key}/chat/${ALICE}?action=pin&value=true`);
      assert.equal(pinned.status, 200);
      assert.equal(pinned.body.data.pinned, true);
      assert.equal((await chatOf(bob, jidOf(ALICE))).pinned, true);
      const unpinned = await t.request('PATCH', `/${bob.key}/chat/${ALICE}?action=pin&value=false`);
      assert.equal(unpinned.body.data.pinned, false);
      assert.equal((await chatOf(bob, jidOf(ALICE))).pinned, false);
    });

    it('sets a disappearing timer on both sides of the chat', async () => {
      const res = await t.request('POST', `/${bob.key}/chat/disappearing`, { jid: jidOf(ALICE), expiration: 604800 });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.id, jidOf(ALICE));
      assert.equal(res.body.data.ephemeralExpiration, 604800);
      assert.equal((await chatOf(bob, jidOf(ALICE))).ephemeralExpiration, 604800);
      await t.waitFor(async () => (await chatOf(alice, jidOf(BOB)))?.ephemeralExpiration === 604800, 5000, 'alice\'s chat to follow');
      const off = await t.request('POST', `/${bob.key}/chat/disappearing`, { jid: ALICE, expiration: 0 });
      assert.equal(off.body.data.ephemeralExpiration, 0);
      await t.waitFor(async () => (await chatOf(alice, jidOf(BOB)))?.ephemeralExpiration === 0, 5000, 'alice\'s chat to turn it off');
    });

    it('refuses a disappearing timer WhatsApp does not offer, and group chats on the sandbox', async () => {
      for (const [body, message] of [
        [{ jid: ALICE, expiration: 3600 }, 'body.expiration must be one of 0, 86400, 604800, 7776000'],
        [{ jid: ALICE, expiration: '86400' }, 'body.expiration must be integer'],
        [{ expiration: 0 }, 'body.jid is required'],
        [{ jid: 'not a jid', expiration: 0 }, 'body.jid must be a phone number with country code (6 to 15 digits) or a JID'],
      ] as const) {
        const res = await t.request('POST', `/${bob.key}/chat/disappearing`, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, 'validation_failed');
        assert.ok(res.body.error.message.includes(message), res.body.error.message);
      }
      const group = await t.request('POST', `/${bob.key}/chat/disappearing`, { jid: '120363000000000001@g.us', expiration: 86400 });
      assert.equal(group.status, 422);
      assert.equal(group.body.error.code, 'capability_not_supported');
      assert.equal((await chatOf(bob, jidOf(ALICE))).ephemeralExpiration, 0);
      assert.equal(await chatOf(bob, '120363000000000001@g.us'), undefined);
    });

    it('allows at most three pinned chats', async () => {
      const others = ['5511910000011', '5511910000012', '5511910000013'];
      for (const number of others) {
        assert.equal((await t.request('POST', `/${bob.key}/chat/disappearing`, { jid: number, expiration: 0 })).status, 200);
      }
      for (const number of [ALICE, ...others.slice(0, 2)]) {
        assert.equal((await t.request('PATCH', `/${bob.key}/chat/${number}?action=pin&value=true`)).status, 200);
      }
      const fourth = await t.request('PATCH', `/${bob.key}/chat/${others[2]}?action=pin&value=true`);
      assert.equal(fourth.status, 409);
      assert.equal(fourth.body.error.code, 'pin_limit');
      assert.equal((await chatOf(bob, jidOf(others[2]!))).pinned, undefined);
      assert.equal((await t.request('PATCH', `/${bob.key}/chat/${others[0]}?action=pin&value=false`)).status, 200);
      assert.equal((await t.request('PATCH', `/${bob.key}/chat/${others[2]}?action=pin&value=true`)).body.data.pinned, true);
    });

    it('subscribes to a contact\'s presence and reports it at once', async () => {
      assert.equal((await t.request('PATCH', `/${bob.key}/instance?receivePresence=true`)).status, 200);
      const res = await t.request('POST', `/${bob.key}/chat/presence/subscribe`, { jid: ALICE });
      assert.deepEqual(res.body, { status: 200, message: `Subscribed to the presence of ${jidOf(ALICE)}` });
      await t.settle();
      const presence = eventsOf(t, bob.id, 'presence').map(({ jid, status }) => ({ jid, status }));
      assert.deepEqual(presence, [{ jid: jidOf(ALICE), status: 'available' }]);
      const unknown = await t.request('POST', `/${bob.key}/chat/presence/subscribe`, { jid: '5511910009999' });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, 'number_not_registered');
      const missing = await t.request('POST', `/${bob.key}/chat/presence/subscribe`, {});
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.message, 'body.jid is required');
    });

    it('answers the privacy settings', async () => {
      const res = await t.request('GET', `/${bob.key}/chat/privacy`);
      assert.deepEqual(res.body, { status: 200, data: PRIVACY });
    });

    it('rejects bad chat updates and changes nothing', async () => {
      const before = await chatOf(bob, jidOf(ALICE));
      const cases: [string, number, string][] = [
        [`/${bob.key}/chat/${ALICE}?action=archive&value=true`, 400, 'query.action must be one of "markRead", "pin"'],
        [`/${bob.key}/chat/${ALICE}?action=pin&value=maybe`, 400, 'query.value must be boolean'],
        [`/${bob.key}/chat/${ALICE}?action=pin`, 400, 'query.value is required'],
        [`/${bob.key}/chat/${ALICE}?value=true`, 400, 'query.action is required'],
        [`/${bob.key}/chat/no-such-jid?action=pin&value=true`, 400, 'path.jid must be a phone number with country code (6 to 15 digits) or a JID'],
        [`/${bob.key}/chat/5511910008888?action=pin&value=true`, 404, 'chat 5511910008888@s.whatsapp.net not found'],
      ];
      for (const [path, status, message] of cases) {
        const res = await t.request('PATCH', path);
        assert.equal(res.status, status, path);
        assert.equal(res.body.error.message, message);
      }
      assert.deepEqual(await chatOf(bob, jidOf(ALICE)), before);
      assert.equal(await chatOf(bob, jidOf('5511910008888')), undefined);
    });

    it('deletes a chat and its messages', async () => {
      const res = await t.request('DELETE', `/${bob.key}/chat/${ALICE}`);
      assert.deepEqual(res.body, { status: 200, message: `Chat ${jidOf(ALICE)} deleted` });
      assert.equal(await chatOf(bob, jidOf(ALICE)), undefined);
      const inbox = await t.request('GET', `/${bob.key}/chat/${ALICE}/messages`);
      assert.deepEqual({ data: inbox.body.data, total: inbox.body.total }, { data: [], total: 0 });
      const again = await t.request('DELETE', `/${bob.key}/chat/${ALICE}`);
      assert.equal(again.status, 404);
      assert.equal(again.body.error.code, 'chat_not_found');
      // The pin slot it held is free again, and the peer's chat is untouched.
      assert.equal((await t.request('PATCH', `/${bob.key}/chat/5511910000011?action=pin&value=true`)).status, 200);
      assert.ok(await chatOf(alice, jidOf(BOB)));
    });

    it('answers 409 while not connected and changes nothing', async () => {
      const carol = await phone(t, 'carol', '5511910000003');
      await deliverText(t, alice, carol, 'hi carol');
      assert.equal((await t.request('DELETE', `/${carol.key}/instance`)).status, 200);
      const before = await chatOf(carol, jidOf(ALICE));
      for (const [method, path, body] of [
        ['PATCH', `/${carol.key}/chat/${ALICE}?action=pin&value=true`, undefined],
        ['PATCH', `/${carol.key}/chat/${ALICE}?action=markRead&value=true`, undefined],
        ['DELETE', `/${carol.key}/chat/${ALICE}`, undefined],
        ['POST', `/${carol.key}/chat/disappearing`, { jid: ALICE, expiration: 86400 }],
        ['POST', `/${carol.key}/chat/presence/subscribe`, { jid: ALICE }],
        ['GET', `/${carol.key}/chat/privacy`, undefined],
      ] as const) {
        const res = await t.request(method, path, body);
        assert.equal(res.status, 409, `${method} ${path}`);
        assert.equal(res.body.error.code, 'not_connected');
      }
      assert.deepEqual(await chatOf(carol, jidOf(ALICE)), before);
      const inbox = await t.request('GET', `/${carol.key}/chat/${ALICE}/messages`);
      assert.equal(inbox.body.data[0].status, 'DELIVERY_ACK');
    });
  });
}
