import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * A phone that cannot decrypt what the instance sent asks for it again (`<receipt type="retry">`), as WhatsApp's
 * apps do. Baileys answers by starting a fresh session and relaying the message again under the same id — the
 * message read back through the channel's `getMessage` — and the phone decrypts it: the send is delivered once.
 */
describe('WhatsApp retry receipts from a phone, on the simulator', () => {
  const env = useSimulatedWhatsApp();

  it('a text the phone could not decrypt (it lost its sessions) is sent again on a new session and delivered once', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const [shop, friend] = ['5511987659881', '5511987659882'];
    const { api } = await env.shopWithFriend(shop, friend, 'phone-retry');
    const first = await api.call('sendText', { body: { to: friend, text: 'primeira' } });
    await t.waitFor(() => sim.simulator.received(friend).some((m) => m.id === first.data.key.id), 20_000, 'the first text, which starts the session');

    await sim.simulator.forgetSessions(friend, shop);
    const second = await api.call('sendText', { body: { to: friend, text: 'depois da restauração' } });
    const id = second.data.key.id;
    const got = await t.waitFor(() => sim.simulator.received(friend).find((m) => m.id === id), 20_000, 'the phone to decrypt the resent text');
    assert.equal(got.text, 'depois da restauração');
    const failed = sim.simulator.undecryptable(friend).filter((m) => m.id === id);
    assert.equal(failed.length, 1, 'the first copy did not decrypt');
    assert.ok(sim.simulator.stanzas(shop, 'message').filter((s) => s.stanza.attrs.id === id).length >= 2, 'relayed again under the same id');

    const status = await t.waitFor(async () => {
      const { data } = await api.call('getMessage', { params: { messageId: id } });
      return data.status === 'DELIVERY_ACK' || data.status === 'READ' ? data.status : undefined;
    }, 20_000, 'the delivery receipt');
    assert.ok(status);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(sim.simulator.received(friend).filter((m) => m.id === id).length, 1, 'once on the phone');
  });
});
