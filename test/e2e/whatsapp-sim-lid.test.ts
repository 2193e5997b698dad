import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * LID addressing on the simulator: a contact whose chats WhatsApp moved to LIDs writes from its LID
 * (`from="<lid>@lid"` with `sender_pn`). Parley files the message under the contact's number — the chat, the
 * sender, the stored record, the contact — knows the LID beside it (no second chat or contact under the LID), and
 * an answer to the number reaches the contact's phone.
 */
describe('a WhatsApp contact addressed by its LID, on the simulator', () => {
  const env = useSimulatedWhatsApp();

  it('its messages are the number\'s chat, with the LID known; an answer to the number reaches its phone', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987659891', pushName: 'Loja' });
    const maria = sim.simulator.createAccount({ number: '5511987659892', pushName: 'Maria', lidAddressed: true });
    const { api } = await env.linkByQr(shop.number, 'lid-contact');
    const { id } = (await api.call('getInstance')).instance as { id: string };

    const hello = await sim.simulator.sendText(maria.number, shop.number, 'Oi, aqui é a Maria');
    const event = await t.waitFor(() => t.events.find((e) => e.type === 'message' && e.instance === id && e.message.id === hello.id), 20_000, 'the message event');
    assert.ok(event.type === 'message');
    assert.deepEqual(
      [event.message.chatJid, event.message.record.key.remoteJid, event.message.from, event.message.fromUserId, event.message.content],
      [maria.jid, maria.jid, maria.number, maria.lid, { type: 'text', body: 'Oi, aqui é a Maria' }],
    );
    const chats = (await api.call('listChats')).data;
    assert.ok(chats.some((c) => c.id === maria.jid), 'the chat is the number\'s');
    assert.ok(!chats.some((c) => c.id === maria.lid), `no second chat under the LID: ${JSON.stringify(chats)}`);

    const contact = await t.waitFor(async () => (await api.call('listContacts')).data.find((c) => c.id === maria.jid && c.lid === maria.lid), 10_000, 'the contact under the number, its LID beside');
    assert.equal(contact.notify, 'Maria');
    assert.ok(!(await api.call('listContacts')).data.some((c) => c.id === maria.lid), 'no second contact under the LID');

    const answer = await api.call('sendText', { body: { to: maria.number, text: 'Olá, Maria!' } });
    const got = await t.waitFor(() => sim.simulator.received(maria.number).find((m) => m.id === answer.data.key.id), 20_000, 'Maria\'s phone to decrypt the answer');
    assert.equal(got.text, 'Olá, Maria!');
    assert.equal(answer.data.key.remoteJid, maria.jid);

    // Her receipts come from her LID too: the statuses are the answer's, in the number's chat.
    sim.simulator.markRead(maria.number, answer.data.key.id);
    const read = await t.waitFor(() => t.events.find((e) => e.type === 'message.status' && e.instance === id && e.messageId === answer.data.key.id && e.status === 'read'), 20_000, 'the read status');
    assert.ok(read.type === 'message.status');
    assert.deepEqual([read.chatJid, read.recipientId], [maria.jid, maria.number]);
    assert.equal((await api.call('getMessage', { params: { messageId: answer.data.key.id } })).data.status, 'READ');
  });
});
