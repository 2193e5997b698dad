import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nativeWebhooks, useWebhookReceivers, type MetaChange } from '../support/simulated-webhooks.js';
import { at } from '../support/webhook-receivers.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Presence, chat states and calls through the WhatsApp simulator over real HTTP: Parley's WhatsApp channel
 * (Baileys' real socket) subscribes to a phone's presence and reports its typing as `presence` events, types
 * to the phone, reports a phone's call as `call` events and rejects it with DELETE /call (spec 4.5, 4.6, 6.3);
 * the meta-format webhooks carry them as the spec's `presence` and `call` event ids.
 */
describe('WhatsApp through the simulator: presence, chat states and calls', () => {
  const wa = useSimulatedWhatsApp();
  const hooks = useWebhookReceivers();
  /** The meta-format changes of `field` the message URL got under `path`, in delivery order. */
  const metaOf = (path: string, field: string): MetaChange[] => at(hooks.receivers().webhookMessage, path)
    .map((r) => r.json as { object?: string; entry?: Array<{ changes: MetaChange[] }> })
    .filter((body) => body.object !== undefined).flatMap((body) => body.entry?.flatMap((e) => e.changes) ?? []).filter((c) => c.field === field);

  it('reports a subscribed phone\'s presence and typing as presence events, and types to the phone', { timeout: 90_000 }, async () => {
    const { sim, t } = wa;
    const account = sim.simulator.createAccount({ number: '5511987657101', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987657102', pushName: 'Cliente' });
    const { api } = await wa.linkByQr(account.number, 'presence', (instance) => nativeWebhooks(instance, hooks.receivers(), 'presence', 'both'));
    const of = () => wa.t.eventsOfType('presence').filter((e) => e.jid === friend.jid).map((e) => e.status);

    await api.call('subscribePresence', { body: { jid: friend.number } });
    // The current presence comes at once: the phone is offline.
    await t.waitFor(() => of().length === 1, 10_000, 'the current presence');
    assert.deepEqual(of(), ['unavailable']);
    sim.simulator.setPresence(friend.number, 'available');
    sim.simulator.sendChatState(friend.number, account.number, 'composing');
    sim.simulator.sendChatState(friend.number, account.number, 'recording');
    sim.simulator.sendChatState(friend.number, account.number, 'paused');
    sim.simulator.setPresence(friend.number, 'unavailable');
    // Baileys reports a pause as `available`.
    await t.waitFor(() => of().length === 6, 10_000, 'the phone\'s presence and chat states');
    assert.deepEqual(of(), ['unavailable', 'available', 'composing', 'recording', 'available', 'unavailable']);
    assert.ok(wa.t.eventsOfType('presence').every((e) => e.chatJid === friend.jid));
    // Spec 6.3 `presence`: field presence, {wa_id, status}, one change per event.
    const presences = () => metaOf('presence', 'presence').map((c) => c.value.presence).filter((p: { wa_id: string }) => p.wa_id === friend.number);
    await t.waitFor(() => presences().length === 6, 10_000, 'the meta presence webhooks');
    assert.deepEqual(presences().map((p: { status: string }) => p.status), ['unavailable', 'available', 'composing', 'recording', 'available', 'unavailable']);

    for (const status of ['composing', 'recording', 'paused'] as const) {
      await api.call('sendPresence', { body: { to: friend.number, status } });
    }
    const phoneGot = () => sim.simulator.signals(friend.number).filter((s) => s.device === 'phone' && s.kind === 'chatstate').map((s) => `${s.from} ${s.state}`);
    await t.waitFor(() => phoneGot().length === 3, 10_000, 'the phone to get Parley\'s chat states');
    assert.deepEqual(phoneGot(), ['composing', 'recording', 'paused'].map((state) => `${account.jid} ${state}`));
  });

  it('reports a phone\'s call as call events, rejects it through DELETE /call (the phone sees the reject), and reports a call the phone ends', { timeout: 90_000 }, async () => {
    const { sim, t } = wa;
    const account = sim.simulator.createAccount({ number: '5511987657111', pushName: 'Loja' });
    const caller = sim.simulator.createAccount({ number: '5511987657112', pushName: 'Cliente' });
    const { api } = await wa.linkByQr(account.number, 'calls', (instance) => nativeWebhooks(instance, hooks.receivers(), 'calls', 'both'));
    const companion = sim.simulator.getAccount(account.number).devices[0]!.jid;
    const calls = (id: string) => wa.t.eventsOfType('call').filter((e) => e.callId === id);

    const ringing = sim.simulator.call(caller.number, account.number, { video: true });
    const offer = await t.waitFor(() => calls(ringing.id).find((e) => e.status === 'offer'), 10_000, 'the call offer event');
    assert.deepEqual({ ...offer, timestamp: 0 }, { ...offer, type: 'call', callId: ringing.id, from: caller.number, fromJid: caller.jid, status: 'offer', isVideo: true, isGroup: false, timestamp: 0 });
    assert.ok(offer.timestamp > 0);
    // Spec 6.3 `call`: field call, calls[] {id, from, status offer, from_jid, is_video, is_group, timestamp}.
    const metaOffer = await t.waitFor(() => metaOf('calls', 'call').flatMap((c) => c.value.calls).find((c: { id: string; status: string }) => c.id === ringing.id && c.status === 'offer'), 10_000, 'the meta call webhook');
    assert.deepEqual(metaOffer, { id: ringing.id, from: caller.number, status: 'offer', from_jid: caller.jid, is_video: true, is_group: false, timestamp: String(offer.timestamp) });
    await api.call('rejectCall', { params: { callId: ringing.id, callFrom: caller.number } });
    const record = sim.simulator.calls(caller.number).find((c) => c.id === ringing.id)!;
    assert.equal(record.status, 'reject');
    assert.deepEqual(record.events.map((e) => [e.action, e.by]), [['offer', 'phone'], ['reject', companion]]);
    assert.ok(sim.simulator.signals(caller.number).some((s) => s.device === 'phone' && s.kind === 'call' && s.state === 'reject' && s.callId === ringing.id));

    const ended = sim.simulator.call(caller.number, account.number);
    await t.waitFor(() => calls(ended.id).some((e) => e.status === 'offer'), 10_000, 'the second offer');
    sim.simulator.endCall(caller.number, ended.id);
    const terminate = await t.waitFor(() => calls(ended.id).find((e) => e.status === 'terminate'), 10_000, 'the terminate event');
    assert.deepEqual([terminate.from, terminate.isVideo], [caller.number, false]);
    // Placing, accepting or ending a call is beyond Baileys (spec 4.6): a clear 422, and the phone sees nothing.
    const signals = sim.simulator.signals(caller.number).length;
    for (const [path, body] of [['call', { to: caller.number }], ['call/accept', { callId: ended.id, callFrom: caller.number }], ['call/end', { callId: ended.id, peerJid: caller.jid }]] as const) {
      const res = await t.request('POST', `/${api.key}/${path}`, body);
      assert.deepEqual([res.status, res.body.error.code], [422, 'capability_not_supported'], path);
    }
    assert.equal(sim.simulator.signals(caller.number).length, signals, 'no call stanza reached the phone');
  });
});
