import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Prekey top-up on the simulator: Baileys uploads 812 one-time prekeys at its first login and more only when
 * the server says they run low (`<notification type="encrypt"><count/>`). When new contacts have used nearly
 * all of them, the instance uploads more — keys it keeps in Parley's storage — and a contact who writes
 * afterwards starts a session on one of the new keys, which the instance decrypts.
 */
describe('WhatsApp prekeys running low, on the simulator', () => {
  const env = useSimulatedWhatsApp();

  it('the instance uploads more when told, and a new contact\'s first message on a new prekey is a message event', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987659871', pushName: 'Loja' });
    const { api } = await env.linkByQr(shop.number, 'prekeys');
    const { id } = (await api.call('getInstance')).instance as { id: string };
    const deviceId = sim.simulator.getAccount(shop.number).devices[0]!.id;
    const uploaded = sim.simulator.preKeyCount(shop.number, deviceId);
    assert.ok(uploaded > 100, `${uploaded} prekeys after the first login`);

    // Contacts took all but two of them.
    assert.equal(sim.simulator.drainPreKeys(shop.number, deviceId, uploaded - 2), 2);
    await t.waitFor(() => sim.simulator.preKeyCount(shop.number, deviceId) > 2, 20_000, 'the instance to upload more prekeys');
    assert.ok(sim.simulator.stanzas(shop.number, 'iq').some((s) => JSON.stringify(s.stanza).includes('"xmlns":"encrypt"') && JSON.stringify(s.stanza).includes('"list"')), 'an upload iq');

    // The two old ones go too: the next contact's session can only start on a key uploaded just now.
    sim.simulator.drainPreKeys(shop.number, deviceId, 2);
    const newcomer = sim.simulator.createAccount({ number: '5511987659872', pushName: 'Nova cliente' });
    const hello = await sim.simulator.sendText(newcomer.number, shop.number, 'Oi! Primeira vez aqui.');
    const event = await t.waitFor(() => t.events.find((e) => e.type === 'message' && e.instance === id && e.message.id === hello.id), 20_000, 'the newcomer\'s message');
    assert.ok(event.type === 'message');
    assert.deepEqual(event.message.content, { type: 'text', body: 'Oi! Primeira vez aqui.' });
  });
});
