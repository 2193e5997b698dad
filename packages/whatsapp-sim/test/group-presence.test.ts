import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaileysEventMap } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { controlApi, refusal, TestClient, useSimulator, waitFor } from './client.js';

/** A linked Baileys client with the presence updates its socket emitted. */
async function linked(sim: RunningSimulator, number: string): Promise<{ client: TestClient; presences: Array<BaileysEventMap['presence.update']> }> {
  const client = new TestClient(sim.url);
  await client.link((qr) => sim.simulator.scanQr(number, qr));
  const presences: Array<BaileysEventMap['presence.update']> = [];
  client.sock!.ev.on('presence.update', (update) => presences.push(update));
  return { client, presences };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/**
 * Presence and chat states in groups over the unmodified Baileys socket: a member's typing reaches the other
 * members' phones and their companions subscribed to the group, named by `participant` (the LID in a
 * LID-addressed group); a subscription to a group is answered with its online count.
 */
describe('presence and chat states in groups, with the Baileys client', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });
  const call = controlApi(() => sim);

  it('relays typing in a group to members\' phones and subscribed companions, each way, blocks and non-members included', { timeout: 90_000 }, async () => {
    const alice = sim.simulator.createAccount({ number: '5511987659401', pushName: 'Alice' });
    const bob = sim.simulator.createAccount({ number: '5511987659402', pushName: 'Bob' });
    const carol = sim.simulator.createAccount({ number: '5511987659403', pushName: 'Carol' });
    const dave = sim.simulator.createAccount({ number: '5511987659404', pushName: 'Dave' });
    const a = await linked(sim, alice.number);
    const c = await linked(sim, carol.number);
    const d = await linked(sim, dave.number);
    const group = sim.simulator.createGroup(bob.number, 'Equipe', [alice.number, carol.number]);
    const inGroup = (seen: Array<BaileysEventMap['presence.update']>) => seen.filter((p) => p.id === group.jid)
      .map((p) => Object.entries(p.presences).map(([who, data]) => `${who} ${data.lastKnownPresence}`).join());

    // Not subscribed: the phones get the typing, the companions nothing.
    sim.simulator.sendChatState(bob.number, group.jid, 'composing');
    const phoneOf = (number: string) => sim.simulator.signals(number).filter((s) => s.device === 'phone' && s.kind === 'chatstate')
      .map((s) => `${s.group} ${s.participant} ${s.from} ${s.state}`);
    assert.deepEqual(phoneOf(alice.number), [`${group.jid} ${bob.jid} ${bob.jid} composing`]);
    assert.deepEqual(phoneOf(carol.number), [`${group.jid} ${bob.jid} ${bob.jid} composing`]);
    assert.deepEqual(phoneOf(bob.number), [], 'the sender\'s own phone');

    // Subscribing answers the group's online count (Baileys' groupOnlineCount): Bob's phone goes online first.
    sim.simulator.setPresence(bob.number, 'available');
    await a.client.sock!.presenceSubscribe(group.jid);
    await waitFor(() => inGroup(a.presences).length === 1, 'the group\'s presence');
    const online = [alice, bob, carol].filter((m) => sim.simulator.presence(m.number).online).length;
    assert.equal(a.presences[0]!.presences[group.jid]!.groupOnlineCount, online);
    assert.ok(online >= 1);
    const companion = sim.simulator.getAccount(alice.number).devices[0]!.jid;
    assert.deepEqual(sim.simulator.signals(alice.number).filter((s) => s.device === companion).map((s) => [s.kind, s.from, s.count]), [['presence', group.jid, online]]);

    // Subscribed: Bob's typing, recording and pause reach Alice's companion, from the group with Bob as participant
    // (Baileys reports a pause as available); Carol's companion, not subscribed, gets none.
    for (const state of ['composing', 'recording', 'paused'] as const) sim.simulator.sendChatState(bob.number, group.jid, state);
    await waitFor(() => inGroup(a.presences).length === 4, 'the chat states in the group');
    assert.deepEqual(inGroup(a.presences).slice(1), [`${bob.jid} composing`, `${bob.jid} recording`, `${bob.jid} available`]);
    assert.deepEqual(sim.simulator.signals(alice.number).filter((s) => s.device === companion && s.kind === 'chatstate').map((s) => `${s.group} ${s.participant} ${s.state}`),
      ['composing', 'recording', 'paused'].map((state) => `${group.jid} ${bob.jid} ${state}`));
    await settle();
    assert.deepEqual(inGroup(c.presences), []);

    // Alice's client types in the group: Bob's and Carol's phones get it, from the group, Alice the participant.
    await a.client.sock!.sendPresenceUpdate('composing', group.jid);
    await a.client.sock!.sendPresenceUpdate('recording', group.jid);
    await waitFor(() => phoneOf(bob.number).length === 2 && phoneOf(carol.number).length === 6, 'the members\' phones');
    assert.deepEqual(phoneOf(bob.number), ['composing', 'recording'].map((state) => `${group.jid} ${alice.jid} ${alice.jid} ${state}`));
    assert.deepEqual(phoneOf(carol.number).slice(4), ['composing', 'recording'].map((state) => `${group.jid} ${alice.jid} ${alice.jid} ${state}`));

    // Carol blocks Alice: Alice's typing no longer reaches Carol (as in 1:1 chats), Bob still gets it.
    sim.simulator.setBlocked(carol.number, alice.number, true);
    await a.client.sock!.sendPresenceUpdate('paused', group.jid);
    await waitFor(() => phoneOf(bob.number).length === 3, 'Bob\'s phone');
    await settle();
    assert.equal(phoneOf(carol.number).length, 6);

    // Dave is not a member: his subscription is answered with nothing, his typing reaches nobody, and his phone is refused.
    const before = [alice, bob, carol].map((m) => sim.simulator.signals(m.number).length);
    await d.client.sock!.presenceSubscribe(group.jid);
    await d.client.sock!.sendPresenceUpdate('composing', group.jid);
    sim.simulator.sendChatState(bob.number, group.jid, 'composing');
    await waitFor(() => inGroup(a.presences).length === 5, 'Bob\'s typing after Dave\'s');
    await settle();
    assert.deepEqual(inGroup(d.presences), []);
    assert.deepEqual([alice, bob, carol].map((m) => sim.simulator.signals(m.number).length), [before[0]! + 2, before[1]!, before[2]! + 1]);
    assert.throws(() => sim.simulator.sendChatState(dave.number, group.jid, 'composing'), /not_a_member|forbidden/);

    // The control API: a phone types in a group; bad input is refused and nothing is relayed.
    assert.equal((await call('POST', `/accounts/${carol.number}/chatstate`, { to: group.jid, state: 'recording' })).status, 204);
    assert.equal(phoneOf(bob.number).at(-1), `${group.jid} ${carol.jid} ${carol.jid} recording`);
    const count = sim.simulator.signals(bob.number).length;
    for (const [body, expected] of [
      [{ to: group.jid, state: 'typing' }, 400],
      [{ to: '120363000000000999@g.us', state: 'composing' }, 404],
      [{ to: group.jid.replace('@g.us', '@s.whatsapp.net'), state: 'composing' }, 404],
    ] as const) {
      const res = await call('POST', `/accounts/${carol.number}/chatstate`, body);
      assert.equal(res.status, expected, JSON.stringify(res.body));
      refusal(res);
    }
    assert.equal(refusal(await call('POST', `/accounts/${dave.number}/chatstate`, { to: group.jid, state: 'composing' })), 'not_a_member');
    assert.equal(sim.simulator.signals(bob.number).length, count, 'nothing relayed');
    for (const x of [a, c, d]) x.client.end();
  });

  it('names the sender by LID, its number beside, in a LID-addressed group', { timeout: 90_000 }, async () => {
    const alice = sim.simulator.createAccount({ number: '5511987659411', pushName: 'Alice' });
    const bob = sim.simulator.createAccount({ number: '5511987659412', pushName: 'Bob' });
    const a = await linked(sim, alice.number);
    const group = sim.simulator.createGroup(bob.number, 'Equipe', [alice.number], { addressingMode: 'lid' });
    const stanzas: Array<Record<string, string>> = [];
    a.client.sock!.ws.on('CB:chatstate', (node: { attrs: Record<string, string> }) => stanzas.push(node.attrs));
    await a.client.sock!.presenceSubscribe(group.jid);
    await waitFor(() => a.presences.some((p) => p.id === group.jid), 'the group\'s presence');
    sim.simulator.sendChatState(bob.number, group.jid, 'composing');
    await waitFor(() => a.presences.some((p) => p.id === group.jid && p.presences[bob.lid!]), 'Bob\'s typing by LID');
    assert.equal(a.presences.find((p) => p.presences[bob.lid!])!.presences[bob.lid!]!.lastKnownPresence, 'composing');
    const companion = sim.simulator.getAccount(alice.number).devices[0]!.jid;
    const got = sim.simulator.signals(alice.number).filter((s) => s.kind === 'chatstate').map((s) => [s.device, s.from, s.participant]);
    assert.deepEqual(got, [['phone', bob.jid, bob.lid], [companion, bob.jid, bob.lid]]);
    // The stanza itself: participant by LID, participant_pn and addressing_mode beside (whatsmeow parseMessageSource reads these).
    assert.deepEqual(stanzas, [{ from: group.jid, participant: bob.lid, participant_pn: bob.jid, addressing_mode: 'lid' }]);
    a.client.end();
  });
});
