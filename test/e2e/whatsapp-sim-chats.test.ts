import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParleyApiError } from '@parley/client';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Issue 25: the chat routes of spec 4.5 that change a chat (PATCH markRead / pin, DELETE) through Parley's REST
 * API, on the channel's real Baileys socket against the simulator. Each change is checked where WhatsApp shows it:
 * the phone's chat state (its companions' app-state patches, applied by the phone), the receipts the sender's
 * phone gets, and what Parley answers afterwards. Listing, presence, the timer and privacy have suites of their own.
 */
describe('WhatsApp chats changed through the REST API, as the phone sees them', () => {
  const env = useSimulatedWhatsApp();
  const refusedWith = (status: number, code: string) => (e: unknown) => e instanceof ParleyApiError && e.status === status && e.code === code;

  it('marks a chat read (the sender\'s phone gets read receipts) and unread, and pins and unpins it, on the phone', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987658401', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987658402', pushName: 'Cliente' });
    const { api } = await env.linkByQr(shop.number, 'chat-routes');
    const first = await sim.simulator.sendText(friend.number, shop.number, 'Oi, tudo bem?');
    const second = await sim.simulator.sendText(friend.number, shop.number, 'Vocês abrem amanhã?');
    await t.waitFor(async () => {
      const chat = (await api.call('listChats')).data.find((c) => c.id === friend.jid);
      return chat && chat.unreadCount === 2 ? chat : undefined;
    }, 20_000, 'both texts to be stored unread');
    const readBy = (id: string) => sim.simulator.sent(friend.number).find((m) => m.id === id)!.receipts.filter((r) => r.type === 'read');
    assert.deepEqual(readBy(second.id), []);

    const read = await api.call('updateChat', { params: { jid: friend.number }, query: { action: 'markRead', value: true } });
    assert.deepEqual([read.data.id, read.data.unreadCount], [friend.jid, 0]);
    await t.waitFor(() => readBy(second.id).length > 0, 10_000, 'the read receipt on the friend\'s phone');
    assert.ok(readBy(second.id).every((r) => r.from.startsWith(shop.number)), JSON.stringify(readBy(second.id)));
    const phoneChat = () => sim.simulator.phoneState(shop.number).chats[friend.jid];
    assert.equal(phoneChat()?.markedAsUnread, false, 'the phone shows the chat read');
    const stored = await api.call('getMessage', { params: { messageId: first.id } });
    assert.equal(stored.data.status, 'READ');

    const unread = await api.call('updateChat', { params: { jid: friend.jid }, query: { action: 'markRead', value: false } });
    assert.ok(unread.data.unreadCount >= 1);
    assert.equal(phoneChat()?.markedAsUnread, true, 'the phone shows the chat marked unread');

    const pinned = await api.call('updateChat', { params: { jid: friend.jid }, query: { action: 'pin', value: true } });
    assert.equal(pinned.data.pinned, true);
    assert.ok((phoneChat()?.pinned ?? 0) > 0, 'the phone shows the chat pinned');
    const listed = (await api.call('listChats')).data.find((c) => c.id === friend.jid)!;
    assert.equal(listed.pinned, true);
    const unpinned = await api.call('updateChat', { params: { jid: friend.jid }, query: { action: 'pin', value: false } });
    assert.ok(!unpinned.data.pinned);
    assert.equal(phoneChat()?.pinned, 0, 'the phone shows the chat unpinned');

    // Bad input: a clear 400, and nothing reaches the phone.
    const before = JSON.stringify(sim.simulator.phoneState(shop.number));
    const patches = sim.simulator.stanzas(shop.number, 'iq').length;
    await assert.rejects(api.call('updateChat', { params: { jid: friend.jid }, query: { action: 'archive' as never, value: true } }), refusedWith(400, 'validation_failed'));
    await assert.rejects(api.call('updateChat', { params: { jid: friend.jid }, query: { action: 'pin', value: 'sim' as never } }), refusedWith(400, 'validation_failed'));
    await assert.rejects(api.call('updateChat', { params: { jid: 'not-a-chat' }, query: { action: 'pin', value: true } }), refusedWith(400, 'validation_failed'));
    assert.equal(JSON.stringify(sim.simulator.phoneState(shop.number)), before);
    assert.equal(sim.simulator.stanzas(shop.number, 'iq').length, patches);
  });

  it('deletes a chat: the phone\'s chat list loses it, Parley lists it no more and answers 404 for it again', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987658411', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987658412', pushName: 'Cliente' });
    const other = sim.simulator.createAccount({ number: '5511987658413', pushName: 'Outro' });
    const { api } = await env.linkByQr(shop.number, 'chat-delete');
    const texts = [await sim.simulator.sendText(friend.number, shop.number, 'Quero cancelar'), await sim.simulator.sendText(other.number, shop.number, 'Olá')];
    for (const [phone, text] of [[friend, texts[0]!], [other, texts[1]!]] as const) {
      await t.waitFor(async () => (await api.call('listChatMessages', { params: { jid: phone.jid } })).data.some((m) => m.key.id === text.id), 20_000, 'the text stored');
    }
    // The phone pins both (its own change, which the chat list shows), so each chat has state on the phone.
    await sim.simulator.changeAppState(shop.number, [{ kind: 'pin', jid: friend.jid, pinned: true }, { kind: 'pin', jid: other.jid, pinned: true }]);
    assert.ok(sim.simulator.phoneState(shop.number).chats[friend.jid]);

    // A label on the chat: the deletion takes the chat off it.
    const label = (await api.call('createLabel', { body: { name: 'Reclamação' } })).data;
    await api.call('addLabelToChat', { params: { labelId: label.id }, body: { to: friend.number } });
    const deleted = await api.call('deleteChat', { params: { jid: friend.number } });
    assert.equal(deleted.status, 200);
    assert.equal(sim.simulator.phoneState(shop.number).chats[friend.jid], undefined, 'the phone deleted the chat');
    assert.ok(sim.simulator.phoneState(shop.number).chats[other.jid], 'the other chat stays on the phone');
    assert.ok(!(await api.call('listChats')).data.some((c) => c.id === friend.jid));
    assert.equal((await api.call('listChatMessages', { params: { jid: friend.jid } })).total, 0, 'its messages went with it');
    await assert.rejects(api.call('deleteChat', { params: { jid: friend.jid } }), refusedWith(404, 'chat_not_found'));
    assert.deepEqual((await api.call('getLabel', { params: { labelId: label.id } })).data.chats, []);
    // The friend's phone keeps its copy.
    assert.ok(sim.simulator.sent(friend.number).some((m) => m.id === texts[0]!.id));

    const state = JSON.stringify(sim.simulator.phoneState(shop.number));
    await assert.rejects(api.call('deleteChat', { params: { jid: 'nobody@nowhere' } }), refusedWith(400, 'validation_failed'));
    assert.equal(JSON.stringify(sim.simulator.phoneState(shop.number)), state);
  });

  it('pins at most three chats: a fourth is refused with 409 pin_limit and the phone pins nothing more', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987658421', pushName: 'Loja' });
    const { api } = await env.linkByQr(shop.number, 'pin-limit');
    const phones = ['5511987658422', '5511987658423', '5511987658424', '5511987658425'].map((number) => sim.simulator.createAccount({ number }));
    for (const phone of phones) {
      const sent = await sim.simulator.sendText(phone.number, shop.number, 'Oi');
      await t.waitFor(async () => (await api.call('listChatMessages', { params: { jid: phone.jid } })).data.some((m) => m.key.id === sent.id), 20_000, 'the chat');
    }
    for (const phone of phones.slice(0, 3)) await api.call('updateChat', { params: { jid: phone.jid }, query: { action: 'pin', value: true } });
    const before = JSON.stringify(sim.simulator.phoneState(shop.number));
    await assert.rejects(api.call('updateChat', { params: { jid: phones[3]!.jid }, query: { action: 'pin', value: true } }), refusedWith(409, 'pin_limit'));
    assert.equal(JSON.stringify(sim.simulator.phoneState(shop.number)), before);
    assert.equal(Object.values(sim.simulator.phoneState(shop.number).chats).filter((c) => (c.pinned ?? 0) > 0).length, 3);
    // Pinning a pinned chat again is no fourth pin.
    await api.call('updateChat', { params: { jid: phones[0]!.jid }, query: { action: 'pin', value: true } });
    await api.call('updateChat', { params: { jid: phones[0]!.jid }, query: { action: 'pin', value: false } });
    const pinned = await api.call('updateChat', { params: { jid: phones[3]!.jid }, query: { action: 'pin', value: true } });
    assert.equal(pinned.data.pinned, true);
    assert.ok((sim.simulator.phoneState(shop.number).chats[phones[3]!.jid]?.pinned ?? 0) > 0);
  });
});
