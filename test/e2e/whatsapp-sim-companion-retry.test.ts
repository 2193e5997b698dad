import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { nativeWebhooks, useWebhookReceivers, type NativeBody } from '../support/simulated-webhooks.js';
import { at } from '../support/webhook-receivers.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

type Api = Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];

/**
 * Retry receipts between two Parley instances linked to two accounts (issue 25): the receiving instance cannot
 * decrypt its copy (the simulator garbles it), its Baileys asks the sending instance's device for a retry, the
 * simulator relays the receipt, the sender's Baileys resends (the message read back through the channel's
 * `getMessage`) to that device alone, and it decrypts. Both sides end with one message and each status once:
 * the receiver one `message` webhook with the text (no `message-unsupported`), the sender `sent` and `delivered`
 * once each.
 */
describe('WhatsApp retry receipts between two Parley instances, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let shopApi: Api;
  let friendApi: Api;
  const hooks = useWebhookReceivers();
  const [shop, friend] = ['5511987659401', '5511987659402'];
  const env = useSimulatedWhatsApp();
  before(async () => {
    ({ sim, t } = env);
    for (const [number, pushName] of [[shop, 'Loja'], [friend, 'Cliente']] as const) sim.simulator.createAccount({ number, pushName });
    ({ api: shopApi } = await env.linkByQr(shop, 'companion-retry-shop', (instance) => nativeWebhooks(instance, hooks.receivers(), 'shop')));
    ({ api: friendApi } = await env.linkByQr(friend, 'companion-retry-friend', (instance) => nativeWebhooks(instance, hooks.receivers(), 'friend')));
  });

  const bodies = (path: string) => at(hooks.receivers().webhookMessage, path).map((r) => r.json as NativeBody);
  /** What the friend's instance reported of message `id`: `[content type, text]` per `message` webhook. */
  const messages = (id: string) => bodies('friend').filter((b) => b.type === 'message' && b.data.message.id === id)
    .map((b) => [b.data.message.content.type, b.data.message.content.body]);
  /** The statuses the shop's instance reported of message `id`, in order (with the member, in a group). */
  const statuses = (id: string) => bodies('shop').filter((b) => b.type === 'message.status' && b.data.messageId === id)
    .map((b) => (b.data.participant ? `${b.data.status} ${b.data.participant}` : b.data.status));
  const sendText = async (text: string, to = friend): Promise<string> => (await shopApi.call('sendText', { body: { to, text } })).data.key.id;

  it('a copy the receiving instance cannot decrypt is retried, resent and reported once on both sides', { timeout: 90_000 }, async () => {
    const first = await sendText('primeira');
    await t.waitFor(() => messages(first).length > 0, 20_000, 'the first text on the friend\'s instance');
    // The phone and the linked device each deliver it: the status moves once.
    await t.waitFor(() => statuses(first).includes('delivered'), 20_000, 'the first text delivered');

    sim.simulator.garbleIncoming(friend);
    const id = await sendText('segunda, reenviada');
    await t.waitFor(() => messages(id).length > 0, 20_000, 'the resent text on the friend\'s instance');
    await t.waitFor(() => statuses(id).includes('delivered'), 20_000, 'the delivered status on the shop\'s instance');
    // Longer than a second resend or a second receipt would take to arrive.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.deepEqual(messages(id), [['text', 'segunda, reenviada']], 'one message webhook, the text itself');
    assert.deepEqual([statuses(first), statuses(id)], [['sent', 'delivered'], ['sent', 'delivered']], 'each status once');

    // It went through the retry: the friend's device asked once, the shop's device resent to it alone.
    const friendDevice = sim.simulator.getAccount(friend).devices[0]!.jid;
    const shopDevice = sim.simulator.getAccount(shop).devices[0]!.jid;
    const retries = sim.simulator.stanzas(friend, 'receipt').filter((s) => s.stanza.attrs.id === id && s.stanza.attrs.type === 'retry');
    assert.deepEqual(retries.map((s) => [s.device, s.stanza.attrs.to]), [[friendDevice, shopDevice]]);
    const relays = sim.simulator.stanzas(shop, 'message').filter((s) => s.stanza.attrs.id === id);
    assert.deepEqual(relays.map((s) => s.stanza.attrs.to), [`${friend}@s.whatsapp.net`, friendDevice], 'the message, then its resend to the asking device');
    // The friend's instance stored it as the text (its history answers the message, not a stub).
    assert.equal(sim.simulator.received(friend).filter((m) => m.id === id).length, 1, 'the phone got its own good copy once');
  });

  it('in a group: the member instance\'s garbled copy is retried, resent to it alone and reported once on both sides', { timeout: 90_000 }, async () => {
    const group = (await shopApi.call('createGroup', { body: { name: 'Pedidos', participants: [friend] } })).data;
    await t.waitFor(async () => (await friendApi.call('listGroups')).data.some((g) => g.id === group.id), 20_000, 'the group on the friend\'s instance');
    const first = await sendText('primeira no grupo', group.id);
    await t.waitFor(() => messages(first).length > 0, 20_000, 'the first group text on the friend\'s instance');

    sim.simulator.garbleIncoming(friend);
    const id = await sendText('segunda no grupo', group.id);
    await t.waitFor(() => messages(id).length > 0, 20_000, 'the resent group text on the friend\'s instance');
    await t.waitFor(() => statuses(id).includes(`delivered ${friend}@s.whatsapp.net`), 20_000, 'the member\'s delivered status');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.deepEqual(messages(id), [['text', 'segunda no grupo']], 'one message webhook, the text itself');
    // The member's phone and its linked device each deliver it: the member's status moves once.
    assert.deepEqual([statuses(first), statuses(id)], [['sent', `delivered ${friend}@s.whatsapp.net`], ['sent', `delivered ${friend}@s.whatsapp.net`]], 'each status once');
    const retries = sim.simulator.stanzas(friend, 'receipt').filter((s) => s.stanza.attrs.id === id && s.stanza.attrs.type === 'retry');
    assert.equal(retries.length, 1, 'one retry receipt');
    const friendDevice = sim.simulator.getAccount(friend).devices[0]!.jid;
    const relays = sim.simulator.stanzas(shop, 'message').filter((s) => s.stanza.attrs.id === id);
    assert.deepEqual(relays.map((s) => s.stanza.attrs.participant), [undefined, friendDevice], 'the message, then its resend to the asking device');
  });
});
