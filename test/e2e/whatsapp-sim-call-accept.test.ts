import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * A phone accepting a call, through the WhatsApp simulator and Baileys' real socket: the caller's devices get
 * `<call><accept/></call>` (whatsmeow CallAccept; Baileys `call` status `accept`), reported as a `call` event
 * whose `from` names the other party (docs/rest-api.md "Calls").
 */
describe('WhatsApp through the simulator: a phone accepts a call', () => {
  const wa = useSimulatedWhatsApp();

  /** The shop's account ("Loja", `<prefix>1`) with an instance linked to its phone, a friend's ("Cliente", `<prefix>2`), and the instance's call events of a call. */
  async function shopAndFriend(prefix: string, name: string) {
    const shop = wa.sim.simulator.createAccount({ number: `${prefix}1`, pushName: 'Loja' });
    const friend = wa.sim.simulator.createAccount({ number: `${prefix}2`, pushName: 'Cliente' });
    const { api } = await wa.linkByQr(shop.number, name);
    const instance = (await api.call('getInstance')).instance.id;
    return { shop, friend, calls: (id: string) => wa.t.eventsOfType('call', instance).filter((e) => e.callId === id) };
  }

  it('the account\'s phone calls a friend who accepts, then ends: accept and terminate events naming the friend', { timeout: 90_000 }, async () => {
    const { sim, t } = wa;
    const { shop, friend, calls } = await shopAndFriend('551198765720', 'call-accept');

    const placed = sim.simulator.call(shop.number, friend.number, { video: true });
    assert.equal(sim.simulator.acceptCall(friend.number, placed.id).status, 'accept');
    // The offer went to the friend's devices only: Baileys knows no offer to take `isVideo` from (callOfferCache).
    const accepted = await t.waitFor(() => calls(placed.id).find((e) => e.status === 'accept'), 10_000, 'the accept event');
    assert.deepEqual({ ...accepted, timestamp: 0 }, { ...accepted, type: 'call', callId: placed.id, from: friend.number, fromJid: friend.jid, status: 'accept', isVideo: false, isGroup: false, timestamp: 0 });
    sim.simulator.endCall(friend.number, placed.id);
    const ended = await t.waitFor(() => calls(placed.id).find((e) => e.status === 'terminate'), 10_000, 'the terminate event');
    assert.deepEqual([ended.from, ended.fromJid], [friend.number, friend.jid]);
    assert.deepEqual(sim.simulator.calls(shop.number).find((c) => c.id === placed.id)!.events.map((e) => [e.action, e.by]), [['offer', 'phone'], ['accept', 'phone'], ['terminate', 'phone']]);
    assert.ok(sim.simulator.signals(shop.number).some((s) => s.device === 'phone' && s.kind === 'call' && s.state === 'accept' && s.callId === placed.id), 'the caller\'s phone is told too');
  });

  it('the account\'s phone answers a call that rang on the instance: nothing more reaches the instance; a second accept is 409', { timeout: 90_000 }, async () => {
    const { sim, t } = wa;
    const { shop, friend, calls } = await shopAndFriend('551198765721', 'call-answered');

    const ringing = sim.simulator.call(friend.number, shop.number);
    await t.waitFor(() => calls(ringing.id).find((e) => e.status === 'offer'), 10_000, 'the offer event');
    sim.simulator.acceptCall(shop.number, ringing.id);
    assert.ok(sim.simulator.signals(friend.number).some((s) => s.device === 'phone' && s.kind === 'call' && s.state === 'accept' && s.callId === ringing.id), 'the caller is told');
    // What a companion gets when its own phone answers, no public source shows; the simulator sends it nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.deepEqual(calls(ringing.id).map((e) => e.status), ['offer']);
    assert.throws(() => sim.simulator.acceptCall(shop.number, ringing.id), (error: { status?: number; code?: string }) => error.status === 409 && error.code === 'call_not_ringing');
    assert.throws(() => sim.simulator.acceptCall(friend.number, ringing.id), (error: { status?: number; code?: string }) => error.status === 404 && error.code === 'call_not_found');
  });
});
