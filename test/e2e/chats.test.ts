import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiError } from '../support/api-error.js';
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

    const chatOf = async (p: Phone, jid: string) => (await t.client(p.key).call('listChats')).data.find((c) => c.id === jid);
    const statuses = async (p: Phone, jid: string) => (await t.client(p.key).call('listChatMessages', { params: { jid } })).data.map((m) => m.status);

    it('lists chats with the spec 2.5 fields', async () => {
      const startedAt = Math.floor(Date.now() / 1000);
      await deliverText(t, alice, bob, 'first');
      const res = await t.client(bob.key).call('listChats');
      assert.equal(res.status, 200);
      assert.equal(res.data.length, 1);
      const { timestamp, ...chat } = res.data[0]!;
      assert.deepEqual(chat, { id: jidOf(ALICE), name: 'alice', unreadCount: 1 });
      assert.ok(Number.isInteger(timestamp) && timestamp >= startedAt && timestamp <= Math.floor(Date.now() / 1000));
    });

    it('marks a chat read: unreadCount 0, incoming records READ, the sender record reaches READ', async () => {
      const second = await deliverText(t, alice, bob, 'second');
      assert.equal((await chatOf(bob, jidOf(ALICE)))!.unreadCount, 2);
      const res = await t.client(bob.key).call('updateChat', { params: { jid: ALICE }, query: { action: 'markRead', value: true } });
      const { timestamp, ...chat } = res.data;
      assert.deepEqual({ status: res.status, chat }, { status: 200, chat: { id: jidOf(ALICE), name: 'alice', unreadCount: 0 } });
      assert.equal(typeof timestamp, 'number');
      assert.equal((await chatOf(bob, jidOf(ALICE)))!.unreadCount, 0);
      assert.deepEqual(await statuses(bob, ALICE), ['READ', 'READ']);
      await t.waitFor(async () => (await statuses(alice, BOB)).every((status) => status === 'READ'), 5000, 'the sender records to reach READ');
      // The record is written before its event reaches subscribers: wait for the event as well.
      const reads = () => eventsOf(t, alice.id, 'message.status').filter((e) => e.status === 'read').map((e) => e.messageId);
      await t.waitFor(async () => reads().includes(second), 5000, 'the read status event');
    });

    it('marks a chat unread without touching the read records', async () => {
      const res = await t.client(bob.key).call('updateChat', { params: { jid: jidOf(ALICE) }, query: { action: 'markRead', value: false } });
      assert.equal(res.status, 200);
      assert.equal(res.data.unreadCount, 1);
      assert.equal((await chatOf(bob, jidOf(ALICE)))!.unreadCount, 1);
      assert.deepEqual(await statuses(bob, ALICE), ['READ', 'READ']);
    });

    it('pins and unpins a chat', async () => {
      const api = t.client(bob.key);
      const pinned = await api.call('updateChat', { params: { jid: ALICE }, query: { action: 'pin', value: true } });
      assert.equal(pinned.status, 200);
      assert.equal(pinned.data.pinned, true);
      assert.equal((await chatOf(bob, jidOf(ALICE)))!.pinned, true);
      const unpinned = await api.call('updateChat', { params: { jid: ALICE }, query: { action: 'pin', value: false } });
      assert.equal(unpinned.data.pinned, false);
      assert.equal((await chatOf(bob, jidOf(ALICE)))!.pinned, false);
    });

    it('sets a disappearing timer on both sides of the chat', async () => {
      const api = t.client(bob.key);
      const res = await api.call('setDisappearingMessages', { body: { jid: jidOf(ALICE), expiration: 604800 } });
      assert.equal(res.status, 200);
      assert.equal(res.data.id, jidOf(ALICE));
      assert.equal(res.data.ephemeralExpiration, 604800);
      assert.equal((await chatOf(bob, jidOf(ALICE)))!.ephemeralExpiration, 604800);
      await t.waitFor(async () => (await chatOf(alice, jidOf(BOB)))?.ephemeralExpiration === 604800, 5000, 'alice\'s chat to follow');
      const off = await api.call('setDisappearingMessages', { body: { jid: ALICE, expiration: 0 } });
      assert.equal(off.data.ephemeralExpiration, 0);
      await t.waitFor(async () => (await chatOf(alice, jidOf(BOB)))?.ephemeralExpiration === 0, 5000, 'alice\'s chat to turn it off');
    });

    it('refuses a disappearing timer WhatsApp does not offer, and group chats on the sandbox', async () => {
      // Bodies the typed client refuses at compile time (a timer outside the union, wrong types, missing members): sent raw.
      for (const [body, message] of [
        [{ jid: ALICE, expiration: 3600 }, 'body.expiration must be one of 0, 86400, 604800, 7776000'],
        [{ jid: ALICE, expiration: '86400' }, 'body.expiration must be integer'],
        [{ expiration: 0 }, 'body.jid is required'],
      ] as const) {
        const res = await t.request('POST', `/${bob.key}/chat/disappearing`, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, 'validation_failed');
        assert.ok(res.body.error.message.includes(message), res.body.error.message);
      }
      const api = t.client(bob.key);
      await assert.rejects(api.call('setDisappearingMessages', { body: { jid: 'not a jid', expiration: 0 } }), (err: unknown) => {
        apiError(400, 'validation_failed')(err);
        const message = (err as Error).message;
        assert.ok(message.includes('body.jid must be a phone number with country code (6 to 15 digits) or a JID'), message);
        return true;
      });
      await assert.rejects(api.call('setDisappearingMessages', { body: { jid: '120363000000000001@g.us', expiration: 86400 } }), apiError(422, 'capability_not_supported'));
      assert.equal((await chatOf(bob, jidOf(ALICE)))!.ephemeralExpiration, 0);
      assert.equal(await chatOf(bob, '120363000000000001@g.us'), undefined);
    });

    it('allows at most three pinned chats', async () => {
      const others = ['5511910000011', '5511910000012', '5511910000013'];
      const api = t.client(bob.key);
      const pin = (jid: string, value: boolean) => api.call('updateChat', { params: { jid }, query: { action: 'pin', value } });
      for (const number of others) {
        assert.equal((await api.call('setDisappearingMessages', { body: { jid: number, expiration: 0 } })).status, 200);
      }
      for (const number of [ALICE, ...others.slice(0, 2)]) {
        assert.equal((await pin(number, true)).status, 200);
      }
      await assert.rejects(pin(others[2]!, true), apiError(409, 'pin_limit'));
      assert.equal((await chatOf(bob, jidOf(others[2]!)))!.pinned, undefined);
      assert.equal((await pin(others[0]!, false)).status, 200);
      assert.equal((await pin(others[2]!, true)).data.pinned, true);
    });

    it('subscribes to a contact\'s presence and reports it at once', async () => {
      const api = t.client(bob.key);
      assert.equal((await api.call('updateInstanceFlags', { query: { receivePresence: true } })).status, 200);
      const res = await api.call('subscribePresence', { body: { jid: ALICE } });
      assert.deepEqual(res, { status: 200, message: `Subscribed to the presence of ${jidOf(ALICE)}` });
      await t.settle();
      const presence = eventsOf(t, bob.id, 'presence').map(({ jid, status }) => ({ jid, status }));
      assert.deepEqual(presence, [{ jid: jidOf(ALICE), status: 'available' }]);
      await assert.rejects(api.call('subscribePresence', { body: { jid: '5511910009999' } }), apiError(404, 'number_not_registered'));
      // A missing member, refused by the typed client at compile time: sent raw.
      const missing = await t.request('POST', `/${bob.key}/chat/presence/subscribe`, {});
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.message, 'body.jid is required');
    });

    it('reports a subscribed contact going offline and coming back', async () => {
      const before = eventsOf(t, bob.id, 'presence').length;
      assert.equal((await t.client(alice.key).call('restartInstance')).status, 200);
      await t.waitFor(() => eventsOf(t, bob.id, 'presence').length === before + 2, 5000, 'the presence changes');
      const changes = eventsOf(t, bob.id, 'presence').slice(before).map(({ jid, status }) => ({ jid, status }));
      assert.deepEqual(changes, [{ jid: jidOf(ALICE), status: 'unavailable' }, { jid: jidOf(ALICE), status: 'available' }]);
    });

    it('answers the privacy settings', async () => {
      const res = await t.client(bob.key).call('getPrivacySettings');
      assert.deepEqual(res, { status: 200, data: PRIVACY });
    });

    it('changes privacy settings (kept by the sandbox phone across a restart); bad ones change nothing', async () => {
      const api = t.client(alice.key);
      const changed = { ...PRIVACY, readreceipts: 'none', groupadd: 'contacts' };
      assert.deepEqual(await api.call('updatePrivacySettings', { body: { readreceipts: 'none', groupadd: 'contacts' } }), { status: 200, data: changed });
      for (const body of [{ readreceipts: 'contacts' }, { colour: 'blue' }, {}]) {
        const res = await t.request('PUT', `/${alice.key}/chat/privacy`, body);
        assert.deepEqual([res.status, res.body.error.code], [400, 'validation_failed'], JSON.stringify(body));
      }
      assert.equal((await api.call('restartInstance')).status, 200);
      await t.waitFor(async () => (await api.call('getInstance')).instance.phoneConnected || undefined, 5000, 'the restart');
      assert.deepEqual((await api.call('getPrivacySettings')).data, changed);
      await api.call('updatePrivacySettings', { body: { readreceipts: 'all', groupadd: 'all' } });
    });

    it('rejects bad chat updates and changes nothing', async () => {
      const before = await chatOf(bob, jidOf(ALICE));
      // Queries the typed client refuses at compile time (unknown actions, wrong types, missing members): sent raw.
      const cases: [string, number, string][] = [
        [`/${bob.key}/chat/${ALICE}?action=archive&value=true`, 400, 'query.action must be one of "markRead", "pin"'],
        [`/${bob.key}/chat/${ALICE}?action=pin&value=maybe`, 400, 'query.value must be boolean'],
        [`/${bob.key}/chat/${ALICE}?action=pin`, 400, 'query.value is required'],
        [`/${bob.key}/chat/${ALICE}?value=true`, 400, 'query.action is required'],
      ];
      for (const [path, status, message] of cases) {
        const res = await t.request('PATCH', path);
        assert.equal(res.status, status, path);
        assert.equal(res.body.error.message, message);
      }
      const api = t.client(bob.key);
      await assert.rejects(api.call('updateChat', { params: { jid: 'no-such-jid' }, query: { action: 'pin', value: true } }),
        apiError(400, 'validation_failed', 'path.jid must be a phone number with country code (6 to 15 digits) or a JID'));
      await assert.rejects(api.call('updateChat', { params: { jid: '5511910008888' }, query: { action: 'pin', value: true } }),
        apiError(404, 'chat_not_found', 'chat 5511910008888@s.whatsapp.net not found'));
      assert.deepEqual(await chatOf(bob, jidOf(ALICE)), before);
      assert.equal(await chatOf(bob, jidOf('5511910008888')), undefined);
    });

    it('deletes a chat and its messages', async () => {
      const api = t.client(bob.key);
      const res = await api.call('deleteChat', { params: { jid: ALICE } });
      assert.deepEqual(res, { status: 200, message: `Chat ${jidOf(ALICE)} deleted` });
      assert.equal(await chatOf(bob, jidOf(ALICE)), undefined);
      const inbox = await api.call('listChatMessages', { params: { jid: ALICE } });
      assert.deepEqual({ data: inbox.data, total: inbox.total }, { data: [], total: 0 });
      await assert.rejects(api.call('deleteChat', { params: { jid: ALICE } }), apiError(404, 'chat_not_found'));
      // The pin slot it held is free again, and the peer's chat is untouched.
      assert.equal((await api.call('updateChat', { params: { jid: '5511910000011' }, query: { action: 'pin', value: true } })).status, 200);
      assert.ok(await chatOf(alice, jidOf(BOB)));
    });

    it('answers 409 while not connected and changes nothing', async () => {
      const carol = await phone(t, 'carol', '5511910000003');
      await deliverText(t, alice, carol, 'hi carol');
      const api = t.client(carol.key);
      assert.equal((await api.call('logoutInstance')).status, 200);
      const before = await chatOf(carol, jidOf(ALICE));
      const calls: [string, () => Promise<unknown>][] = [
        ['pin', () => api.call('updateChat', { params: { jid: ALICE }, query: { action: 'pin', value: true } })],
        ['markRead', () => api.call('updateChat', { params: { jid: ALICE }, query: { action: 'markRead', value: true } })],
        ['deleteChat', () => api.call('deleteChat', { params: { jid: ALICE } })],
        ['setDisappearingMessages', () => api.call('setDisappearingMessages', { body: { jid: ALICE, expiration: 86400 } })],
        ['subscribePresence', () => api.call('subscribePresence', { body: { jid: ALICE } })],
        ['getPrivacySettings', () => api.call('getPrivacySettings')],
      ];
      for (const [what, call] of calls) {
        await assert.rejects(call(), apiError(409, 'not_connected'), what);
      }
      assert.deepEqual(await chatOf(carol, jidOf(ALICE)), before);
      assert.equal((await statuses(carol, ALICE))[0], 'DELIVERY_ACK');
    });
  });
}
