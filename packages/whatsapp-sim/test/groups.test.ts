import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BaileysEventMap, GroupMetadata, MessageUserReceiptUpdate } from '@whiskeysockets/baileys';

type GroupParticipantsUpdate = BaileysEventMap['group-participants.update'];
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

/** A linked client that also records group events and per-member receipts. */
async function groupClient(sim: RunningSimulator, number: string) {
  const client = new TestClient(sim.url);
  await client.link((qr) => sim.simulator.scanQr(number, qr));
  const seen = { groups: [] as Array<Partial<GroupMetadata>>, participants: [] as GroupParticipantsUpdate[], receipts: [] as MessageUserReceiptUpdate[] };
  client.sock!.ev.on('groups.upsert', (groups) => seen.groups.push(...groups));
  client.sock!.ev.on('groups.update', (groups) => seen.groups.push(...groups));
  client.sock!.ev.on('group-participants.update', (update) => seen.participants.push(update));
  client.sock!.ev.on('message-receipt.update', (updates) => seen.receipts.push(...updates));
  /**
   * Per-member receipts of a message this client sent: a receipt that arrives while Baileys still buffers
   * the message's own upsert is folded into its `userReceipt` instead of a message-receipt.update.
   */
  const receiptsOf = (id: string) => [
    ...seen.receipts.filter((r) => r.key.id === id).map((r) => r.receipt),
    ...client.seen.upserts.filter((m) => m.key.id === id).flatMap((m) => m.userReceipt ?? []),
  ];
  return { client, sock: client.sock!, seen, receiptsOf };
}

describe('groups with sender keys between Baileys and simulated phones', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('Baileys creates a group and sends into it: phones and the other member\'s Baileys decrypt, receipts name each member', { timeout: 90_000 }, async () => {
    const alice = sim.simulator.createAccount({ number: '5511987653001', pushName: 'Alice' });
    const bob = sim.simulator.createAccount({ number: '5511987653002', pushName: 'Bob' });
    const carol = sim.simulator.createAccount({ number: '5511987653003', pushName: 'Carol' });
    const a = await groupClient(sim, alice.number);
    const c = await groupClient(sim, carol.number);
    const meta = await a.sock.groupCreate('Equipe', [bob.jid, carol.jid, '5511900000000@s.whatsapp.net']);
    assert.match(meta.id, /^120363\d+@g\.us$/);
    assert.equal(meta.subject, 'Equipe');
    assert.equal(meta.owner, alice.jid);
    assert.deepEqual(meta.participants.map((p) => `${p.id} ${p.admin}`).sort(), [`${alice.jid} superadmin`, `${bob.jid} null`, `${carol.jid} null`].sort());
    await waitFor(() => c.seen.groups.some((g) => g.id === meta.id), 'the create notification at Carol');
    assert.equal(c.seen.groups.find((g) => g.id === meta.id)!.subject, 'Equipe');

    const first = await a.sock.sendMessage(meta.id, { text: 'bom dia, equipe' });
    await waitFor(() => sim.simulator.received(bob.number).some((m) => m.id === first!.key.id), 'Bob\'s phone to decrypt');
    const atBob = sim.simulator.received(bob.number).find((m) => m.id === first!.key.id)!;
    assert.equal(atBob.text, 'bom dia, equipe');
    assert.equal(atBob.group, meta.id);
    assert.equal(atBob.type, 'skmsg');
    assert.equal(atBob.fromNumber, alice.number);
    await waitFor(() => c.client.seen.upserts.some((m) => m.key.id === first!.key.id && m.message), 'Carol\'s Baileys to decrypt');
    const atCarol = c.client.seen.upserts.find((m) => m.key.id === first!.key.id)!;
    assert.equal(atCarol.message?.conversation ?? atCarol.message?.extendedTextMessage?.text, 'bom dia, equipe');
    assert.equal(atCarol.key.remoteJid, meta.id);
    assert.ok(atCarol.key.participant?.startsWith(alice.number));
    assert.ok(sim.simulator.received(carol.number).some((m) => m.id === first!.key.id), 'Carol\'s phone decrypts too');
    // Per-member delivery receipts reach the sender naming who received.
    await waitFor(() => a.receiptsOf(first!.key.id!).some((r) => r.userJid?.startsWith(bob.number)), 'Bob\'s delivery receipt');
    sim.simulator.markRead(bob.number, first!.key.id!);
    await waitFor(() => a.receiptsOf(first!.key.id!).some((r) => r.userJid?.startsWith(bob.number) && r.readTimestamp), 'Bob\'s read receipt');

    // A second message goes under the sender key the members already have (no new distribution).
    const second = await a.sock.sendMessage(meta.id, { text: 'segunda' });
    await waitFor(() => sim.simulator.received(bob.number).some((m) => m.id === second!.key.id), 'the second message at Bob');
    assert.equal(sim.simulator.received(bob.number).find((m) => m.id === second!.key.id)!.text, 'segunda');

    // A phone sends into the group: both Baileys clients decrypt, and their receipts reach the phone.
    const fromBob = await sim.simulator.sendGroupText(bob.number, meta.id, 'oi, do celular do Bob');
    for (const who of [a, c]) {
      await waitFor(() => who.client.seen.upserts.some((m) => m.key.id === fromBob.id && m.message), 'the phone\'s group message at a client');
      const got = who.client.seen.upserts.find((m) => m.key.id === fromBob.id)!;
      assert.equal(got.message?.conversation, 'oi, do celular do Bob');
      assert.equal(got.key.remoteJid, meta.id);
      assert.equal(got.key.participant, bob.jid);
    }
    assert.equal(sim.simulator.received(alice.number).find((m) => m.id === fromBob.id)?.text, 'oi, do celular do Bob');
    await waitFor(() => sim.simulator.sent(bob.number).find((m) => m.id === fromBob.id)!.receipts.length >= 4, 'four delivery receipts at Bob');
    // A played receipt (as for a voice note) from Carol's Baileys reaches Bob's phone, naming her device.
    await c.sock.sendReceipt(meta.id, bob.jid, [fromBob.id], 'played');
    await waitFor(() => sim.simulator.sent(bob.number).find((m) => m.id === fromBob.id)!.receipts
      .some((r) => r.type === 'played' && r.from === `${carol.number}:1@s.whatsapp.net`), 'the played receipt at Bob');
    // Carol's Baileys answers in the group with the key it got from Bob's phone.
    const reply = await c.sock.sendMessage(meta.id, { text: 'recebido' });
    await waitFor(() => sim.simulator.received(bob.number).some((m) => m.id === reply!.key.id), 'Carol\'s reply at Bob');
    assert.deepEqual(sim.simulator.undecryptable(bob.number), []);
    a.client.end();
    c.client.end();
  });

  it('participants, roles, subject, description, settings and invite codes, with notifications and refusals', { timeout: 90_000 }, async () => {
    const owner = sim.simulator.createAccount({ number: '5511987653101', pushName: 'Dona' });
    const member = sim.simulator.createAccount({ number: '5511987653102' });
    const newcomer = sim.simulator.createAccount({ number: '5511987653103' });
    const o = await groupClient(sim, owner.number);
    const m = await groupClient(sim, member.number);
    const meta = await o.sock.groupCreate('Clube', [member.jid]);
    await assert.rejects(m.sock.groupParticipantsUpdate(meta.id, [newcomer.jid], 'add'), (error: { data?: unknown }) => error.data === 401);
    const added = await o.sock.groupParticipantsUpdate(meta.id, [newcomer.jid, member.jid, '5511900000001@s.whatsapp.net'], 'add');
    assert.deepEqual(added.map((r) => r.status), ['200', '409', '404']);
    await waitFor(() => m.seen.participants.some((u) => u.action === 'add'), 'the add notification at the member');
    await o.sock.groupParticipantsUpdate(meta.id, [member.jid], 'promote');
    await m.sock.groupUpdateSubject(meta.id, 'Clube do livro');
    await m.sock.groupUpdateDescription(meta.id, 'Um livro por mês');
    await o.sock.groupSettingUpdate(meta.id, 'announcement');
    await o.sock.groupParticipantsUpdate(meta.id, [newcomer.jid], 'remove');
    const now = await o.sock.groupMetadata(meta.id);
    assert.equal(now.subject, 'Clube do livro');
    assert.equal(now.desc, 'Um livro por mês');
    assert.equal(now.announce, true);
    assert.deepEqual(now.participants.map((p) => `${p.id} ${p.admin}`).sort(), [`${owner.jid} superadmin`, `${member.jid} admin`].sort());
    await waitFor(() => m.seen.groups.some((g) => g.subject === 'Clube do livro'), 'the subject notification');
    // A removed member's phone can no longer send into the group.
    await assert.rejects(sim.simulator.sendGroupText(newcomer.number, meta.id, 'oi'), /not a member/);
    const code = await o.sock.groupInviteCode(meta.id);
    assert.equal(code, sim.simulator.getGroup(meta.id).inviteCode);
    const revoked = await o.sock.groupRevokeInvite(meta.id);
    assert.notEqual(revoked, code);
    await assert.rejects(o.sock.groupMetadata('120363000000000000@g.us'), (error: { data?: unknown }) => error.data === 404);
    const all = await m.sock.groupFetchAllParticipating();
    assert.deepEqual(Object.keys(all), [meta.id]);
    await m.sock.groupLeave(meta.id);
    await waitFor(() => o.seen.participants.some((u) => u.action === 'remove' && u.participants.some((p) => p.id === member.jid)), 'the leave notification');
    assert.deepEqual(sim.simulator.getGroup(meta.id).members.map((x) => x.number), [owner.number]);
    o.client.end();
    m.client.end();
  });
});
