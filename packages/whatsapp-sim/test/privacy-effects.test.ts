import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto } from '@whiskeysockets/baileys';
import type { BaileysEventMap, MessageUserReceiptUpdate } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

const { DELIVERY_ACK, READ } = proto.WebMessageInfo.Status;

/** A linked client that also records presence updates and per-member receipts. */
async function linked(sim: RunningSimulator, number: string) {
  const client = new TestClient(sim.url);
  const presences: Array<BaileysEventMap['presence.update']> = [];
  const receipts: MessageUserReceiptUpdate[] = [];
  await client.link((qr) => sim.simulator.scanQr(number, qr));
  client.sock!.ev.on('presence.update', (update) => presences.push(update));
  client.sock!.ev.on('message-receipt.update', (updates) => receipts.push(...updates));
  return { client, sock: client.sock!, presences, receipts };
}

describe('privacy settings take effect (read receipts, online, group adds) with Baileys', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('readreceipts none: the reader\'s read never reaches the sender in a 1:1 chat, nor reaches an account that turned them off; groups still get it', { timeout: 90_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659601', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659602', pushName: 'Ana' });
    const carol = sim.simulator.createAccount({ number: '5511987659603', pushName: 'Carol' });
    const { client, sock, receipts } = await linked(sim, me.number);
    const sendAndDeliver = async (text: string) => {
      const sent = await sock.sendMessage(friend.jid, { text });
      const id = sent!.key.id!;
      await waitFor(() => client.statusOf(id) === DELIVERY_ACK, `the delivery of "${text}"`);
      return id;
    };

    // The phone reads with read receipts off: the sender keeps "delivered".
    sim.simulator.setPrivacy(friend.number, { readreceipts: 'none' });
    const unseen = await sendAndDeliver('recebeu?');
    sim.simulator.markRead(friend.number, unseen);
    // In a group its reads are still sent (the FAQ: "Read receipts are always sent for group chats").
    const group = sim.simulator.createGroup(carol.number, 'Turma', [me.number, friend.number]);
    await waitFor(() => sim.simulator.listGroups(me.number).some((g) => g.jid === group.jid), 'the group');
    const inGroup = (await sock.sendMessage(group.jid, { text: 'oi, turma' }))!.key.id!;
    await waitFor(() => sim.simulator.received(friend.number).some((m) => m.id === inGroup), 'the group message at the phone');
    sim.simulator.markRead(friend.number, inGroup);
    // A receipt that comes while Baileys still buffers the message's upsert is folded into its userReceipt.
    const groupReceipts = () => [...receipts.filter((r) => r.key.id === inGroup).map((r) => r.receipt), ...client.seen.upserts.filter((m) => m.key.id === inGroup).flatMap((m) => m.userReceipt ?? [])];
    await waitFor(() => groupReceipts().some((r) => r.userJid?.startsWith(friend.number) && r.readTimestamp), 'the group read');
    // Turned back on: the next read arrives, and the one read while off still has not.
    sim.simulator.setPrivacy(friend.number, { readreceipts: 'all' });
    const seen = await sendAndDeliver('e agora?');
    sim.simulator.markRead(friend.number, seen);
    await waitFor(() => client.statusOf(seen) === READ, 'the read after turning receipts back on');
    assert.equal(client.statusOf(unseen), DELIVERY_ACK);

    // The client turns its own read receipts off through Baileys: the server keeps it, and others' reads stop reaching it.
    await sock.updateReadReceiptsPrivacy('none');
    assert.equal(sim.simulator.privacy(me.number).readreceipts, 'none');
    const mine = await sendAndDeliver('sem confirmação');
    sim.simulator.markRead(friend.number, mine);
    // Baileys reads the phone's message with `read-self` now: the phone gets no read either.
    const fromFriend = await sim.simulator.sendText(friend.number, me.number, 'li?');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === fromFriend.id), 'the phone\'s message');
    await sock.readMessages([client.seen.upserts.find((m) => m.key.id === fromFriend.id)!.key]);
    await sock.updateReadReceiptsPrivacy('all');
    const last = await sendAndDeliver('de volta');
    sim.simulator.markRead(friend.number, last);
    await waitFor(() => client.statusOf(last) === READ, 'the read once the client turned them back on');
    assert.equal(client.statusOf(mine), DELIVERY_ACK);
    const atPhone = sim.simulator.sent(friend.number).find((m) => m.id === fromFriend.id)!.receipts.map((r) => r.type);
    assert.ok(atPhone.includes('delivery') && !atPhone.includes('read'), `the phone's receipts: ${atPhone.join(', ')}`);
    client.end();
  });

  it('online match_last_seen: a subscriber the last seen is hidden from never sees the account online', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659611', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659612', pushName: 'Ana' });
    const other = sim.simulator.createAccount({ number: '5511987659613', pushName: 'Bia' });
    const { sock, presences } = await linked(sim, me.number);
    const of = (jid: string) => presences.filter((p) => p.id === jid).map((p) => `${p.presences[jid]!.lastKnownPresence}${p.presences[jid]!.lastSeen ? ' last' : ''}`);

    // Last seen shared with contacts only (I am not one), online matching it: online, the subscriber sees offline without a time.
    sim.simulator.setPrivacy(friend.number, { last: 'contacts', online: 'match_last_seen' });
    sim.simulator.setPresence(friend.number, 'available');
    await sock.presenceSubscribe(friend.jid);
    await waitFor(() => of(friend.jid).length === 1, 'the answer to the subscription');
    assert.deepEqual(of(friend.jid), ['unavailable']);
    assert.equal(sim.simulator.signals(me.number).at(-1)!.last, 'deny');

    // online: all shows it to everyone, whatever the last seen.
    sim.simulator.setPrivacy(other.number, { last: 'none', online: 'all' });
    sim.simulator.setPresence(other.number, 'available');
    await sock.presenceSubscribe(other.jid);
    await waitFor(() => of(other.jid).length === 1, 'the answer about the account online for all');
    assert.deepEqual(of(other.jid), ['available']);

    // Going offline and online again changes nothing for me; once the friend saves me as a contact, I see it.
    sim.simulator.setPresence(friend.number, 'unavailable');
    sim.simulator.setPresence(friend.number, 'available');
    await sim.simulator.changeAppState(friend.number, [{ kind: 'contact', jid: me.jid, fullName: 'Loja' }]);
    sim.simulator.setPresence(friend.number, 'unavailable');
    await waitFor(() => of(friend.jid).length === 2, 'the change seen by a contact');
    assert.deepEqual(of(friend.jid), ['unavailable', 'unavailable last']);
    sim.simulator.setPresence(friend.number, 'available');
    await waitFor(() => of(friend.jid).length === 3, 'online, seen by a contact');
    assert.equal(of(friend.jid).at(-1), 'available');
  });

  it('groupadd contacts: an add by a stranger answers 403 with an add_request invitation; a contact adds', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659621', pushName: 'Loja' });
    const picky = sim.simulator.createAccount({ number: '5511987659622', pushName: 'Ana' });
    const open = sim.simulator.createAccount({ number: '5511987659623', pushName: 'Bia' });
    const { sock } = await linked(sim, me.number);
    await sock.updateGroupsAddPrivacy('contacts');
    assert.equal(sim.simulator.privacy(me.number).groupadd, 'contacts');
    sim.simulator.setPrivacy(picky.number, { groupadd: 'contacts' });

    // Creating leaves out who refuses the creator, as an add does.
    const meta = await sock.groupCreate('Clientes', [picky.jid]);
    assert.deepEqual(meta.participants.map((p) => p.id), [me.jid]);
    const before = Math.floor(Date.now() / 1000);
    const results = await sock.groupParticipantsUpdate(meta.id, [picky.jid, open.jid], 'add');
    assert.deepEqual(results.map((r) => [r.jid, r.status]), [[picky.jid, '403'], [open.jid, '200']]);
    const request = (results[0]!.content as { content?: Array<{ tag: string; attrs: Record<string, string> }> }).content?.[0];
    assert.equal(request?.tag, 'add_request');
    assert.match(request!.attrs.code!, /^[\w-]{22}$/);
    assert.ok(Number(request!.attrs.expiration) > before, 'the invitation expires in the future');
    assert.deepEqual(sim.simulator.getGroup(meta.id).members.map((m) => m.number).sort(), [me.number, open.number].sort());

    // Saved as a contact, the same add goes through; a phone adding me is refused unless I saved it.
    await sim.simulator.changeAppState(picky.number, [{ kind: 'contact', jid: me.jid, fullName: 'Loja' }]);
    assert.deepEqual((await sock.groupParticipantsUpdate(meta.id, [picky.jid], 'add')).map((r) => r.status), ['200']);
    const theirs = sim.simulator.createGroup(open.number, 'Vizinhos', []);
    const refused = sim.simulator.updateGroupMembers(open.number, theirs.jid, 'add', [me.number]);
    assert.deepEqual(refused.map((r) => [r.number, r.status]), [[me.number, 403]]);
    assert.ok(refused[0]!.addRequest?.code, 'the control API shows the invitation too');
  });
});
