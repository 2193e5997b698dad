import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/** How many texts the phone sends while Parley is away: two of the batches Baileys asks for (100 each), and some. */
const WHILE_AWAY = 150;

/**
 * What WhatsApp kept for the instance while it could not connect comes from the offline queue at the next
 * login, in the batches Baileys asks for (`offline_preview` / `offline_batch`), each stanza marked offline
 * (Baileys upserts them as `append`, not `notify`). Each is a message event once and stored; with
 * mark-messages on they are read like live ones — the phone gets the read receipts.
 */
describe('WhatsApp messages from the offline queue, in batches, on the simulator', () => {
  const env = useSimulatedWhatsApp({}, { reconnect: { baseDelayMs: 200, maxDelayMs: 1_000, jitter: 0 } });

  it(`${WHILE_AWAY} texts sent while the server refused the instance: each a message event once, stored, and read with markMessageRead`, { timeout: 120_000 }, async () => {
    const { sim, t } = env;
    const [shop, friend] = ['5511987659861', '5511987659862'];
    const { api } = await env.shopWithFriend(shop, friend, 'offline-batches');
    await api.call('updateInstanceFlags', { query: { markMessageRead: true } });
    const { id } = (await api.call('getInstance')).instance as { id: string };
    const status = async () => (await api.call('getInstance')).instance.connection?.status;

    await sim.simulator.startOutage('refuse');
    const sent: string[] = [];
    try {
      await t.waitFor(async () => (await status()) === 'connecting', 20_000, 'the instance to notice the refused link');
      for (let i = 0; i < WHILE_AWAY; i++) sent.push((await sim.simulator.sendText(friend, shop, `enquanto fora ${i}`)).id);
    } finally {
      await sim.simulator.endOutage();
    }
    await t.waitFor(async () => (await status()) === 'open', 30_000, 'the reconnection');

    const messageEvents = () => t.events.flatMap((e) => (e.type === 'message' && e.instance === id && sent.includes(e.message.id) ? [e.message.id] : []));
    await t.waitFor(() => messageEvents().length >= sent.length, 30_000, 'a message event for each');
    assert.deepEqual(messageEvents(), sent, 'each once, in the order the phone sent them');
    const batches = sim.simulator.stanzas(shop, 'ib').filter((s) => JSON.stringify(s.stanza).includes('offline_batch'));
    assert.ok(batches.length >= 2, `handed over in ${batches.length} batches`);
    for (const messageId of [sent[0]!, sent.at(-1)!]) {
      const stored = await api.call('getMessage', { params: { messageId } });
      assert.equal(stored.data.key.fromMe, false);
    }

    const readByShop = () => sim.simulator.sent(friend).filter((m) => sent.includes(m.id) && m.receipts.some((r) => r.type === 'read'));
    await t.waitFor(() => readByShop().length === sent.length, 30_000, 'read receipts for every message kept while away');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(t.events.filter((e) => e.type === 'message' && e.instance === id && sent.includes(e.message.id)).length, sent.length, 'nothing twice');
  });
});
