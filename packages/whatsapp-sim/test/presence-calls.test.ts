import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaileysEventMap, WACallEvent } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

/** Records presence updates and calls of every socket the client opens. */
function recordSignals(client: TestClient): { presences: Array<BaileysEventMap['presence.update']>; calls: WACallEvent[] } {
  const seen = { presences: [] as Array<BaileysEventMap['presence.update']>, calls: [] as WACallEvent[] };
  const connect = client.connect.bind(client);
  client.connect = (extra) => {
    const sock = connect(extra);
    sock.ev.on('presence.update', (update) => seen.presences.push(update));
    sock.ev.on('call', (calls) => seen.calls.push(...calls));
    return sock;
  };
  return seen;
}

describe('presence, chat states and calls between a phone and Baileys', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('relays a phone\'s presence and typing to a subscribed client, and the client\'s typing to the phone', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659301', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659302', pushName: 'Ana' });
    const client = new TestClient(sim.url);
    const seen = recordSignals(client);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const of = (jid: string) => seen.presences.filter((p) => p.id === jid).map((p) => p.presences[jid]!.lastKnownPresence);

    // Not subscribed yet: the phone's typing reaches no companion.
    sim.simulator.sendChatState(friend.number, me.number, 'composing');
    assert.deepEqual(sim.simulator.signals(me.number).map((s) => [s.device, s.kind, s.state]), [['phone', 'chatstate', 'composing']]);

    await client.sock!.presenceSubscribe(friend.jid);
    // Subscribing answers the current presence: offline, with a last-seen time.
    await waitFor(() => of(friend.jid).length === 1, 'the current presence');
    assert.equal(of(friend.jid)[0], 'unavailable');
    assert.ok((seen.presences[0]!.presences[friend.jid]!.lastSeen ?? 0) > 0);
    sim.simulator.setPresence(friend.number, 'available');
    sim.simulator.sendChatState(friend.number, me.number, 'composing');
    sim.simulator.sendChatState(friend.number, me.number, 'recording');
    sim.simulator.sendChatState(friend.number, me.number, 'paused');
    sim.simulator.setPresence(friend.number, 'unavailable');
    // Baileys reports `paused` as available.
    await waitFor(() => of(friend.jid).length === 6, 'the presence changes');
    assert.deepEqual(of(friend.jid), ['unavailable', 'available', 'composing', 'recording', 'available', 'unavailable']);
    const companion = sim.simulator.getAccount(me.number).devices[0]!.jid;
    assert.deepEqual(sim.simulator.signals(me.number).filter((s) => s.device === companion).map((s) => `${s.kind}:${s.state}`),
      ['presence:unavailable', 'presence:available', 'chatstate:composing', 'chatstate:recording', 'chatstate:paused', 'presence:unavailable']);

    // Hidden last seen: `deny` instead of a time (Baileys then reports no lastSeen).
    sim.simulator.setPrivacy(friend.number, { last: 'none' });
    sim.simulator.setPresence(friend.number, 'available');
    sim.simulator.setPresence(friend.number, 'unavailable');
    await waitFor(() => of(friend.jid).length === 8, 'the presence with last seen hidden');
    assert.equal(seen.presences.at(-1)!.presences[friend.jid]!.lastSeen, undefined);
    assert.equal(sim.simulator.signals(me.number).at(-1)!.last, 'deny');

    // The client types and records to the phone.
    await client.sock!.sendPresenceUpdate('composing', friend.jid);
    await client.sock!.sendPresenceUpdate('recording', friend.jid);
    await client.sock!.sendPresenceUpdate('paused', friend.jid);
    const phoneGot = () => sim.simulator.signals(friend.number).filter((s) => s.device === 'phone').map((s) => `${s.from} ${s.state}`);
    await waitFor(() => phoneGot().length === 3, 'the phone to get the chat states');
    assert.deepEqual(phoneGot(), [`${me.jid} composing`, `${me.jid} recording`, `${me.jid} paused`]);

    // A blocked account's typing and presence no longer arrive.
    await client.sock!.updateBlockStatus(friend.jid, 'block');
    sim.simulator.setPresence(friend.number, 'available');
    sim.simulator.sendChatState(friend.number, me.number, 'composing');
    await client.sock!.sendPresenceUpdate('composing', friend.jid);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(of(friend.jid).length, 8);
    assert.equal(phoneGot().length, 3);
    client.end();
  });

  it('rings a client with a phone\'s call: the client rejects it (the phone sees the reject), and the phone ends another', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659311', pushName: 'Loja' });
    const caller = sim.simulator.createAccount({ number: '5511987659312', pushName: 'Bia' });
    const client = new TestClient(sim.url);
    const seen = recordSignals(client);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const companion = sim.simulator.getAccount(me.number).devices[0]!.jid;

    const first = sim.simulator.call(caller.number, me.number, { video: true });
    assert.deepEqual(first.devices, [companion, 'phone']);
    await waitFor(() => seen.calls.some((c) => c.id === first.id && c.status === 'offer'), 'the offer');
    const offer = seen.calls.find((c) => c.id === first.id)!;
    assert.deepEqual([offer.from, offer.chatId, offer.isVideo, offer.isGroup], [caller.jid, caller.jid, true, false]);
    await client.sock!.rejectCall(first.id, caller.jid);
    const record = sim.simulator.calls(caller.number).find((c) => c.id === first.id)!;
    assert.equal(record.status, 'reject');
    assert.deepEqual(record.events.map((e) => [e.action, e.by]), [['offer', 'phone'], ['reject', companion]]);
    assert.ok(sim.simulator.signals(caller.number).some((s) => s.device === 'phone' && s.kind === 'call' && s.state === 'reject' && s.callId === first.id));
    assert.throws(() => sim.simulator.endCall(caller.number, first.id), /already ended/);

    const second = sim.simulator.call(caller.number, me.number);
    await waitFor(() => seen.calls.some((c) => c.id === second.id && c.status === 'offer'), 'the second offer');
    assert.equal(seen.calls.find((c) => c.id === second.id)!.isVideo, false);
    sim.simulator.endCall(caller.number, second.id);
    await waitFor(() => seen.calls.some((c) => c.id === second.id && c.status === 'terminate'), 'the terminate');

    // A blocked caller never rings.
    await client.sock!.updateBlockStatus(caller.jid, 'block');
    const third = sim.simulator.call(caller.number, me.number);
    assert.deepEqual(third.devices, []);
    assert.throws(() => sim.simulator.call(caller.number, caller.number), /own account/);
    assert.throws(() => sim.simulator.endCall(me.number, 'NOPE'), /no call/);
    client.end();
  });
});
