import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Quotes and reactions in a LID-addressed group: the phones name the quoted or reacted-to member by LID (as the
 * group names its members everywhere), and Parley's events name them by number, as they name authors, readers and
 * members mentioned there (plugins/channel-baileys README, LID-addressed groups); the records keep WhatsApp's JIDs.
 */
describe('quotes and reactions in a LID-addressed WhatsApp group, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });
  const messageEvent = (instance: string, id: string) =>
    t.waitFor(() => t.eventsOfType('message', instance).find((e) => e.message.id === id), 20_000, `the message event of ${id}`);

  it('a phone quoting or reacting to a member names it by LID on the wire; Parley names it by number', { timeout: 150_000 }, async () => {
    const { shop, owner, carol, dave, api, id, group } = await env.shopInLidGroup('551198765940', 'lid-answers');

    const said = await sim.simulator.sendGroupText(carol.number, group.jid, 'Chegou o pedido?');
    await messageEvent(id, said.id);
    const ours = (await api.call('sendText', { body: { to: group.jid, text: 'Chegou ontem' } })).data;
    await t.waitFor(() => sim.simulator.received(dave.number).find((m) => m.id === ours.key.id), 20_000, 'Dave\'s phone to get Parley\'s message');

    // Dave quotes Carol, then Parley: contextInfo.participant by LID on the wire, the events' context by number.
    const quoteCarol = await sim.simulator.sendMessage(dave.number, { group: group.jid }, { kind: 'reply', text: 'Eu também quero', quoted: { messageId: said.id, author: carol.number, text: 'Chegou o pedido?' } });
    const quoteShop = await sim.simulator.sendMessage(dave.number, { group: group.jid }, { kind: 'reply', text: 'Obrigado', quoted: { messageId: ours.key.id, author: shop.number, text: 'Chegou ontem' } });
    type Content = { extendedTextMessage?: { contextInfo?: { participant?: string } }; reactionMessage?: { key?: Record<string, unknown> } };
    const onOwnerPhone = async (messageId: string) =>
      (await t.waitFor(() => sim.simulator.received(owner.number).find((m) => m.id === messageId), 20_000, 'the owner\'s phone to get it')) as { message: Content };
    assert.equal((await onOwnerPhone(quoteCarol.id)).message.extendedTextMessage?.contextInfo?.participant, carol.lid);
    assert.equal((await onOwnerPhone(quoteShop.id)).message.extendedTextMessage?.contextInfo?.participant, shop.lid);
    const quotedCarol = await messageEvent(id, quoteCarol.id);
    assert.deepEqual(quotedCarol.message.context, { id: said.id, from: carol.number });
    assert.deepEqual((await messageEvent(id, quoteShop.id)).message.context, { id: ours.key.id, from: shop.number });
    assert.equal((quotedCarol.message.record.message as { extendedTextMessage: { contextInfo: { participant: string } } }).extendedTextMessage.contextInfo.participant, carol.lid);

    // Dave reacts to Carol's message and to Parley's: the keys name them by LID; Parley's events target the messages.
    const reactCarol = await sim.simulator.sendMessage(dave.number, { group: group.jid }, { kind: 'reaction', messageId: said.id, emoji: '👍', author: carol.number });
    const reactShop = await sim.simulator.sendMessage(dave.number, { group: group.jid }, { kind: 'reaction', messageId: ours.key.id, emoji: '🙏', author: shop.number });
    assert.deepEqual((await onOwnerPhone(reactCarol.id)).message.reactionMessage?.key, { remoteJid: group.jid, fromMe: false, id: said.id, participant: carol.lid });
    assert.equal((await onOwnerPhone(reactShop.id)).message.reactionMessage?.key?.participant, shop.lid);
    const reacted = await messageEvent(id, reactCarol.id);
    assert.deepEqual([reacted.message.content, reacted.message.from], [{ type: 'reaction', messageId: said.id, emoji: '👍' }, dave.number]);
    const reactedOurs = await messageEvent(id, reactShop.id);
    assert.deepEqual(reactedOurs.message.content, { type: 'reaction', messageId: ours.key.id, emoji: '🙏' });
    // Baileys puts the reaction's key in Parley's perspective: the LID of its own account makes it fromMe.
    assert.equal((reactedOurs.message.record.message as { reactionMessage: { key: { fromMe: boolean } } }).reactionMessage.key.fromMe, true);
  });
});
