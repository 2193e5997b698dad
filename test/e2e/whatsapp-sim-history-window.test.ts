import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Defect 6 of issue 25 (6b), on Baileys' real socket: a live message that comes *after* a history set holding
 * its key inside one window of Baileys' event buffer is filed under that set (Utils/event-buffer.js), so
 * Baileys never upserts it; Parley must still emit its `message` event.
 */
describe('a live message behind a history chunk that holds it, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });

  it('one message event for a text whose RECENT history chunk reached the device first in the same offline batch', { timeout: 90_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659341', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659342', pushName: 'Cliente' });
    const { api } = await env.linkByQr(shop.number, 'history-window');
    const instance = (await api.call('getInstance')).instance.id;
    // The device goes away; the chunk and the live copy wait in its offline queue, in that order, and reach
    // it in one batch at its next login, while Baileys buffers its events until `<ib><offline>`.
    await sim.simulator.startOutage('refuse');
    let sent: { id: string };
    try {
      await t.waitFor(async () => !(await api.call('getInstance')).instance.phoneConnected, 20_000, 'the device offline');
      sent = await sim.simulator.sendTextAfterHistory(friend.number, shop.number, 'Chegou atrás do histórico');
    } finally {
      await sim.simulator.endOutage();
    }
    const mine = (e: { instance?: string }) => e.instance === instance;
    const histories = () => t.events.flatMap((e) => (e.type === 'history' && mine(e) ? e.messages.map((m) => m.key.id) : []));
    const messages = () => t.events.filter((e) => e.type === 'message' && mine(e) && e.message.id === sent.id);
    await t.waitFor(() => histories().includes(sent.id), 60_000, 'the text in a history event');
    await t.waitFor(() => messages().length > 0, 10_000, 'the text as a message event');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const [event] = messages();
    assert.equal(messages().length, 1, 'one message event');
    assert.ok(event?.type === 'message');
    assert.deepStrictEqual([event.message.fromMe, event.message.chatJid, event.message.content], [false, friend.jid, { type: 'text', body: 'Chegou atrás do histórico' }]);
  });
});
