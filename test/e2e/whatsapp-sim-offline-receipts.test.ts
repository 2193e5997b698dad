import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * What "going offline" (POST /{key}/message/presence `unavailable`, and the channel's default of not
 * marking itself online on connect, `markOnlineOnConnect` false) does to the phones that write to the
 * instance, with the unmodified Baileys socket on the simulator. WhatsApp's clients still acknowledge every
 * message while offline: Baileys answers with an `inactive` receipt instead of a plain one (messages-recv,
 * `sendActiveReceipts`), which WhatsApp counts as delivered (whatsmeow types.ReceiptTypeInactive). So the
 * phone keeps seeing its messages delivered (two grey ticks), and offline only changes the receipt's type
 * and what contacts see of the account's presence; it is no way to hide deliveries. The instance stays
 * offline through Baileys' credential churn (retry receipts), which used to announce it online.
 */
describe('WhatsApp delivery receipts while the instance is offline, on the simulator', () => {
  const env = useSimulatedWhatsApp();

  it('offline on connect and after presence unavailable: inactive receipts the phone counts as delivered; online: plain ones', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = '5511987659601';
    const friend = '5511987659602';
    const { api } = await env.shopWithFriend(shop, friend, 'offline-receipts');
    const device = () => sim.simulator.getAccount(shop).devices[0]!.jid;

    /** The friend's phone writes; answers the type of the instance's receipt and whether the phone saw it delivered. */
    async function write(text: string): Promise<{ type: string | undefined; delivered: boolean }> {
      const sent = await sim.simulator.sendText(friend, shop, text);
      const receipt = await t.waitFor(() => sim.simulator.stanzas(shop, 'receipt').find((s) => s.stanza.attrs.id === sent.id), 20_000, `the instance's receipt for "${text}"`);
      const record = await t.waitFor(() => sim.simulator.sent(friend).find((m) => m.id === sent.id && m.receipts.length > 0), 20_000, `the phone's receipt for "${text}"`);
      const stored = await api.call('getMessage', { params: { messageId: sent.id } });
      assert.equal(stored.data.key.id, sent.id, 'Parley received and stored it');
      return { type: receipt.stanza.attrs.type, delivered: record.receipts.some((r) => r.type === 'delivery' && r.from === device()) };
    }

    /** The instance's presence through the REST route, and the `<presence>` the server saw for it. */
    async function present(status: 'available' | 'unavailable'): Promise<void> {
      const seen = sim.simulator.stanzas(shop, 'presence').length;
      const res = await api.call('sendPresence', { body: { to: friend, status } });
      assert.equal(res.status, 200);
      const stanza = await t.waitFor(() => sim.simulator.stanzas(shop, 'presence').slice(seen).find((s) => s.stanza.attrs.type === status), 10_000, `<presence type="${status}">`);
      assert.equal(stanza.stanza.attrs.name, 'Loja', 'sent under the account\'s push name');
    }

    assert.deepEqual(await write('Bom dia'), { type: 'inactive', delivered: true }, 'offline since connect (markOnlineOnConnect false)');
    await present('available');
    assert.deepEqual(await write('Tem pão?'), { type: undefined, delivered: true }, 'online: a plain delivery receipt');
    await present('unavailable');
    assert.deepEqual(await write('Ainda tem?'), { type: 'inactive', delivered: true }, 'offline again: still delivered, as inactive');
    assert.equal(sim.simulator.presence(shop).online, false);

    // A message the instance cannot decrypt makes Baileys send retry receipts with fresh pre-keys (a partial
    // creds.update each): the instance stays offline all the same, no `<presence/>` (available) goes out.
    const seen = sim.simulator.stanzas(shop, 'presence').length;
    const unreadable = await sim.simulator.sendUndecryptable(friend, shop, 'ilegível');
    await t.waitFor(() => sim.simulator.stanzas(shop, 'receipt').filter((s) => s.stanza.attrs.id === unreadable.id && s.stanza.attrs.type === 'retry').length >= 2,
      20_000, 'the instance\'s retry receipts');
    await write('Recebeu?');
    assert.deepEqual(sim.simulator.stanzas(shop, 'presence').slice(seen).map((s) => s.stanza.attrs), [], 'no presence after going offline');
    assert.equal(sim.simulator.presence(shop).online, false, 'the account is still offline');
  });

  it('stays offline when it first learns the account\'s push name after linking (Baileys announces a new name with a type-less presence)', { timeout: 60_000 }, async () => {
    const { sim, t } = env;
    const shop = '5511987659611';
    await env.shopWithFriend(shop, '5511987659612', 'offline-name');
    // The phone's first history sync carries the push name; Baileys announces it with <presence name="Loja"/>, read as available.
    await t.waitFor(() => sim.simulator.stanzas(shop, 'presence').some((s) => s.stanza.attrs.name === 'Loja'), 20_000, 'the push name announced');
    await t.waitFor(() => !sim.simulator.presence(shop).online, 5_000, 'the account offline again (markOnlineOnConnect false)');
    assert.deepEqual(sim.simulator.stanzas(shop, 'presence').map((s) => s.stanza.attrs.type ?? 'available'), ['available', 'unavailable']);
  });
});
