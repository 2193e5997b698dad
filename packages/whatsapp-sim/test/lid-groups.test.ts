import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaileysEventMap, MessageUserReceiptUpdate } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { controlApi, refusal, TestClient, useSimulator, waitFor } from './client.js';

/**
 * LID-addressed groups (`addressing_mode="lid"`) as Baileys rc14 reads them: metadata members by LID with
 * `phoneNumber`, notifications from the actor's LID, messages from the author's LID device with `participant_pn`
 * (Baileys' `participantAlt`), receipts from members' LIDs, and a client's send (usync by LID, sender key to LID
 * devices) decrypted by every member's phone and companion.
 */
describe('LID-addressed groups, with the Baileys client', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });
  const call = controlApi(() => sim);

  it('metadata, notifications, messages both ways and receipts name members by LID, the number beside', { timeout: 90_000 }, async () => {
    const alice = sim.simulator.createAccount({ number: '5511987653401', pushName: 'Alice' });
    const bob = sim.simulator.createAccount({ number: '5511987653402', pushName: 'Bob' });
    const carol = sim.simulator.createAccount({ number: '5511987653403', pushName: 'Carol' });
    const dave = sim.simulator.createAccount({ number: '5511987653404', pushName: 'Dave' });
    const a = new TestClient(sim.url);
    await a.link((qr) => sim.simulator.scanQr(alice.number, qr));
    const c = new TestClient(sim.url);
    await c.link((qr) => sim.simulator.scanQr(carol.number, qr));
    const participants: Array<BaileysEventMap['group-participants.update']> = [];
    const receipts: MessageUserReceiptUpdate[] = [];
    a.sock!.ev.on('group-participants.update', (update) => participants.push(update));
    a.sock!.ev.on('message-receipt.update', (updates) => receipts.push(...updates));

    const group = sim.simulator.createGroup(bob.number, 'Equipe', [alice.number, carol.number], { addressingMode: 'lid' });
    const meta = await a.sock!.groupMetadata(group.jid);
    assert.deepEqual([meta.addressingMode, meta.owner, meta.ownerPn, meta.subjectOwner, meta.subjectOwnerPn], ['lid', bob.lid, bob.jid, bob.lid, bob.jid]);
    assert.deepEqual(meta.participants.map((p) => `${p.id} ${p.phoneNumber} ${p.admin}`).sort(),
      [`${bob.lid} ${bob.jid} superadmin`, `${alice.lid} ${alice.jid} null`, `${carol.lid} ${carol.jid} null`].sort());

    sim.simulator.updateGroupMembers(bob.number, group.jid, 'add', [dave.number]);
    await waitFor(() => participants.some((u) => u.action === 'add'), 'the add notification');
    const added = participants.find((u) => u.action === 'add')!;
    assert.deepEqual([added.author, added.participants.map((p) => [p.id, p.phoneNumber])], [bob.lid, [[dave.lid, dave.jid]]]);

    // A phone's message: from its LID, its number as participantAlt.
    const said = await sim.simulator.sendGroupText(bob.number, group.jid, 'bom dia');
    await waitFor(() => a.seen.upserts.some((m) => m.key.id === said.id), 'Bob\'s message at Alice');
    const got = a.seen.upserts.find((m) => m.key.id === said.id)!;
    assert.deepEqual([got.key.participant, got.key.participantAlt, got.key.addressingMode, got.message?.conversation], [bob.lid, bob.jid, 'lid', 'bom dia']);

    // Alice's client sends: the stanza names LID devices, every phone and Carol's client decrypt; receipts come from LIDs.
    const sent = await a.sock!.sendMessage(group.jid, { text: 'oi, equipe' });
    for (const member of [bob, carol, dave]) {
      await waitFor(() => sim.simulator.received(member.number).some((m) => m.id === sent!.key.id), `${member.pushName}'s phone to decrypt`);
    }
    // Baileys sends a group text as an extendedTextMessage.
    await waitFor(() => c.seen.upserts.some((m) => m.key.id === sent!.key.id && m.message?.extendedTextMessage?.text === 'oi, equipe'), 'Carol\'s client to decrypt');
    const atCarol = c.seen.upserts.find((m) => m.key.id === sent!.key.id)!;
    assert.deepEqual([atCarol.key.participant, atCarol.key.participantAlt], [alice.lid, alice.jid]);
    const wire = sim.simulator.stanzas(alice.number, 'message').find((s) => s.stanza.attrs.id === sent!.key.id)!.stanza;
    const copies = (wire.content as Array<{ tag: string; content?: Array<{ attrs: Record<string, string> }> }>).find((n) => n.tag === 'participants')!.content!;
    assert.ok(copies.every((n) => n.attrs.jid!.endsWith('@lid')), JSON.stringify(copies));
    sim.simulator.markRead(dave.number, sent!.key.id!);
    await waitFor(() => receipts.some((r) => r.key.id === sent!.key.id && r.receipt.userJid === dave.lid && r.receipt.readTimestamp), 'Dave\'s read receipt from his LID');
    a.end();
    c.end();
  });

  it('the control API creates a LID group and refuses an unknown addressing mode, creating nothing', async () => {
    const ana = sim.simulator.createAccount({ number: '5511987653411', pushName: 'Ana' }).number;
    const before = (await call('GET', '/groups')).body.length;
    const bad = await call('POST', `/accounts/${ana}/groups`, { subject: 'Família', participants: [], addressingMode: 'phone' });
    assert.deepEqual([bad.status, refusal(bad)], [400, 'validation_failed body.addressingMode']);
    assert.equal((await call('GET', '/groups')).body.length, before);
    const created = await call('POST', `/accounts/${ana}/groups`, { subject: 'Família', participants: [], addressingMode: 'lid' });
    assert.deepEqual([created.status, created.body.addressingMode], [201, 'lid']);
  });
});
