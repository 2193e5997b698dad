import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { SAMPLES } from '../support/media-server.js';
import { phoneGot } from '../support/simulated-phone.js';
import { nativeWebhooks, useWebhookReceivers, type NativeBody } from '../support/simulated-webhooks.js';
import { at } from '../support/webhook-receivers.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

type Api = Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];
/** One status of a meta-format body (spec 6.3 `status-*` and `receipt`). */
type MetaStatus = { id: string; status: string; timestamp: string; recipient_id: string; recipient_type?: string; recipient_participant_id?: string };

/**
 * Issue 25 defect 7 on Baileys' real socket against the simulator, through webhooks in both formats on real
 * HTTP receivers: statuses carry the time of the receipt the phone sent (a past time here), not Parley's; a
 * phone that reads at once (delivery and read back to back, merged by Baileys' event buffer) still gives
 * `delivered` then `read`; a voice note the phone plays gives `played` (spec `status-played`) in a chat and
 * in a group; group receipts name the group as recipient and the member as participant (spec `status-group`,
 * and `receipt` for a read).
 */
describe('WhatsApp statuses from the phones\' receipts, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let api: Api;
  const hooks = useWebhookReceivers();
  const shop = '5511987658201';
  const friend = '5511987658202';
  const carol = '5511987658203';
  const dave = '5511987658204';
  const path = 'receipts';
  const PAST = 1_700_000_000;
  const env = useSimulatedWhatsApp();
  before(async () => {
    ({ sim, t } = env);
    for (const [number, pushName] of [[shop, 'Loja'], [friend, 'Cliente'], [carol, 'Carol'], [dave, 'Dave']] as const) sim.simulator.createAccount({ number, pushName });
    ({ api } = await env.linkByQr(shop, 'receipts', (instance) => nativeWebhooks(instance, hooks.receivers(), path, 'both')));
  });

  const bodies = () => at(hooks.receivers().webhookMessage, path).map((r) => r.json as NativeBody & { object?: string; entry?: any[] });
  /** The native statuses of message `id`, in delivery order: `[status, timestamp, recipientId, participant?]`. */
  const native = (id: string) => bodies().filter((b) => b.type === 'message.status' && b.data.messageId === id)
    .map((b) => [b.data.status, b.data.timestamp, b.data.recipientId, b.data.participant] as const);
  /** The meta-format statuses of message `id`, in delivery order. */
  const meta = (id: string): MetaStatus[] => bodies().flatMap((b) => (b.object === 'parley' ? b.entry!.flatMap((e) => e.changes.flatMap((c: any) => c.value.statuses ?? [])) : []))
    .filter((s: MetaStatus) => s.id === id);
  const waitStatuses = (id: string, count: number, what: string) =>
    t.waitFor(() => (native(id).length >= count && meta(id).length >= count ? native(id) : undefined), 20_000, what);
  const sendText = async (to: string, text: string) => (await api.call('sendText', { body: { to, text } })).data.key.id;
  const sendVoice = async (to: string) => (await api.call('sendBase64Audio', { body: { to, base64: `data:audio/ogg;base64,${SAMPLES.ogg.toString('base64')}` } })).data.key.id;

  it('delivered and read carry the times the phone put in its receipts, not Parley\'s', { timeout: 60_000 }, async () => {
    sim.simulator.setReceipts(friend, { t: PAST });
    const id = await sendText(friend, 'Seu pedido saiu');
    await phoneGot(sim, t, friend, id);
    sim.simulator.markRead(friend, id, PAST + 30);
    await waitStatuses(id, 3, 'sent, delivered and read');
    assert.deepEqual(native(id).filter(([s]) => s !== 'sent'), [['delivered', PAST, friend, undefined], ['read', PAST + 30, friend, undefined]]);
    assert.deepEqual(meta(id).filter((s) => s.status !== 'sent').map((s) => [s.status, s.timestamp, s.recipient_id]), [['delivered', String(PAST), friend], ['read', String(PAST + 30), friend]]);
    sim.simulator.setReceipts(friend, { t: null });
  });

  it('a phone that reads at once (delivery and read back to back) still gives delivered, then read', { timeout: 60_000 }, async () => {
    sim.simulator.setReceipts(friend, { readAtOnce: true, t: PAST + 60 });
    const id = await sendText(friend, 'Chegou?');
    await waitStatuses(id, 3, 'sent, delivered and read');
    assert.deepEqual(native(id).map(([s, ts]) => [s, ts]).filter(([s]) => s !== 'sent'), [['delivered', PAST + 60], ['read', PAST + 60]]);
    assert.deepEqual(meta(id).map((s) => s.status).filter((s) => s !== 'sent'), ['delivered', 'read']);
    sim.simulator.setReceipts(friend, { readAtOnce: false, t: null });
  });

  it('a voice note the phone plays is played (status-played)', { timeout: 60_000 }, async () => {
    const id = await sendVoice(friend);
    await phoneGot(sim, t, friend, id);
    await waitStatuses(id, 2, 'sent and delivered');
    sim.simulator.markPlayed(friend, id, PAST + 90);
    await waitStatuses(id, 3, 'played');
    assert.deepEqual(native(id).at(-1), ['played', PAST + 90, friend, undefined]);
    const played = meta(id).at(-1)!;
    assert.deepEqual([played.status, played.timestamp, played.recipient_id, played.recipient_type], ['played', String(PAST + 90), friend, undefined]);
  });

  it('in a group: each member\'s delivery (status-group) and read (receipt) name the group and the member; a played voice note is played', { timeout: 90_000 }, async () => {
    const group = sim.simulator.createGroup(carol, 'Atacado', [shop, dave]);
    await t.waitFor(() => t.events.find((e) => e.type === 'group.update' && e.groups.some((g) => g.id === group.jid)), 20_000, 'the group');
    // Dave's phone reads at once: his delivery and read come back to back (Baileys merges them into one receipt update).
    sim.simulator.setReceipts(dave, { t: PAST + 120, readAtOnce: true });
    const id = await sendText(group.jid, 'Bom dia, grupo');
    await phoneGot(sim, t, carol, id);
    await phoneGot(sim, t, dave, id);
    sim.simulator.markRead(carol, id, PAST + 150);
    await waitStatuses(id, 5, 'sent, two deliveries and two reads');
    const member = (number: string) => native(id).filter(([, , , p]) => p === `${number}@s.whatsapp.net`).map(([s, , r]) => [s, r]);
    assert.deepEqual(member(carol), [['delivered', group.jid], ['read', group.jid]]);
    assert.deepEqual(native(id).filter(([, , , p]) => p === `${dave}@s.whatsapp.net`).map(([s, ts]) => [s, ts]), [['delivered', PAST + 120], ['read', PAST + 120]]);
    const metaOf = (number: string) => meta(id).filter((s) => s.recipient_participant_id === number).map((s) => [s.status, s.recipient_id, s.recipient_type]);
    assert.deepEqual(metaOf(carol), [['delivered', group.jid, 'group'], ['read', group.jid, 'group']]);
    assert.equal(meta(id).find((s) => s.recipient_participant_id === carol && s.status === 'read')!.timestamp, String(PAST + 150));
    assert.deepEqual(metaOf(dave), [['delivered', group.jid, 'group'], ['read', group.jid, 'group']]);
    const readEvent = bodies().find((b) => b.type === 'message.status' && b.data.messageId === id && b.data.status === 'read');
    assert.equal(readEvent!.data.receipt, true);

    sim.simulator.setReceipts(dave, { t: null, readAtOnce: false });
    const voice = await sendVoice(group.jid);
    await phoneGot(sim, t, carol, voice);
    await t.waitFor(() => native(voice).some(([s, , , p]) => s === 'delivered' && p === `${carol}@s.whatsapp.net`), 20_000, 'carol\'s delivery');
    sim.simulator.markPlayed(carol, voice, PAST + 180);
    await t.waitFor(() => native(voice).find(([s, , , p]) => s !== 'delivered' && s !== 'sent' && p === `${carol}@s.whatsapp.net`), 20_000, 'carol\'s played');
    assert.deepEqual(native(voice).filter(([s, , , p]) => s !== 'sent' && p === `${carol}@s.whatsapp.net`), [
      ['delivered', (native(voice).find(([s, , , p]) => s === 'delivered' && p === `${carol}@s.whatsapp.net`)!)[1], group.jid, `${carol}@s.whatsapp.net`],
      ['played', PAST + 180, group.jid, `${carol}@s.whatsapp.net`],
    ]);
    await t.waitFor(() => meta(voice).find((s) => s.status === 'played'), 20_000, 'the meta played status');
    assert.deepEqual(meta(voice).filter((s) => s.recipient_participant_id === carol).map((s) => s.status), ['delivered', 'played']);
  });
});
