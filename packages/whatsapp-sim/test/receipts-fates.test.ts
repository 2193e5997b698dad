import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { proto, type BaileysEventMap, type BinaryNode, type MessageUserReceiptUpdate } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';
import { JPEG } from './jpeg.js';

const { Status, StubType } = proto.WebMessageInfo;

/**
 * Receipts (their time, a phone that reads at once, played), disappearing-message timers, view-once media
 * and messages that never decrypt, against the unmodified Baileys client.
 */
describe('receipts, disappearing messages, view-once and undecryptable messages', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; }, { media: true });

  // Baileys' own sends are not upserted (as Parley runs it), so receipts are never folded into a buffered upsert.
  const linked = async (number: string) => {
    const account = sim.simulator.createAccount({ number });
    const client = new TestClient(sim.url, { emitOwnEvents: false });
    await client.link((qr) => sim.simulator.scanQr(account.number, qr));
    return { account, client };
  };

  it('receipts carry the time the phone chose; a phone that reads at once sends delivery and read back to back; played for audio', { timeout: 60_000 }, async () => {
    const { client } = await linked('5511987657001');
    const friend = sim.simulator.createAccount({ number: '5511987657002' });
    const stanzas: BinaryNode[] = [];
    client.sock!.ws.on('CB:receipt', (node: BinaryNode) => stanzas.push(node));
    const past = 1_700_000_000;
    sim.simulator.setReceipts(friend.number, { t: past, readAtOnce: true });
    const sent = await client.sock!.sendMessage(friend.jid, { text: 'lido na hora' });
    const id = sent!.key.id!;
    await waitFor(() => client.statusOf(id) >= Status.READ, 'the read receipt');
    assert.deepEqual(stanzas.filter((n) => n.attrs.id === id).map((n) => [n.attrs.type, n.attrs.t]), [[undefined, String(past)], ['read', String(past)]]);
    const updates = client.seen.messageUpdates.filter((u) => u.key.id === id);
    assert.ok(updates.length > 0 && updates.every((u) => Number(u.update.messageTimestamp) === past), JSON.stringify(updates));

    sim.simulator.setReceipts(friend.number, { t: null, readAtOnce: false });
    const audio = await client.sock!.sendMessage(friend.jid, { audio: randomBytes(1024), mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 2 });
    await waitFor(() => client.statusOf(audio!.key.id!) === Status.DELIVERY_ACK, 'the voice note\'s delivery');
    assert.throws(() => sim.simulator.markPlayed(friend.number, id), /not an audio message/);
    sim.simulator.markPlayed(friend.number, audio!.key.id!, past + 60);
    await waitFor(() => client.statusOf(audio!.key.id!) === Status.PLAYED, 'the played receipt');
    const played = client.seen.messageUpdates.find((u) => u.key.id === audio!.key.id && u.update.status === Status.PLAYED)!;
    assert.equal(Number(played.update.messageTimestamp), past + 60);
    client.end();
  });

  it('group receipts name the member; a phone\'s played receipt in a group reaches the author', { timeout: 60_000 }, async () => {
    const { account: me, client } = await linked('5511987657011');
    const carol = sim.simulator.createAccount({ number: '5511987657012' });
    const group = sim.simulator.createGroup(carol.number, 'Vozes', [me.number]);
    const receipts: MessageUserReceiptUpdate[] = [];
    client.sock!.ev.on('message-receipt.update', (updates) => receipts.push(...updates));
    const audio = await client.sock!.sendMessage(group.jid, { audio: randomBytes(1024), mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 2 });
    await waitFor(() => receipts.some((r) => r.receipt.receiptTimestamp), 'carol\'s delivery receipt');
    sim.simulator.markPlayed(carol.number, audio!.key.id!, 1_700_000_100);
    await waitFor(() => receipts.some((r) => r.receipt.readTimestamp), 'the played receipt (Baileys files it as read)');
    const got = receipts.find((r) => r.receipt.readTimestamp)!;
    assert.deepEqual([got.key.remoteJid, got.key.id, got.receipt.userJid, Number(got.receipt.readTimestamp)], [group.jid, audio!.key.id, carol.jid, 1_700_000_100]);
    client.end();
  });

  it('a phone turns on disappearing messages in a chat and in a group: Baileys learns each timer', { timeout: 60_000 }, async () => {
    const { account: me, client } = await linked('5511987657021');
    const friend = sim.simulator.createAccount({ number: '5511987657022' });
    const chats: Array<BaileysEventMap['chats.update'][number]> = [];
    // A change that lands in the buffer window of the chat's creation is folded into its chats.upsert.
    client.sock!.ev.on('chats.update', (updates) => chats.push(...updates));
    client.sock!.ev.on('chats.upsert', (upserts) => chats.push(...upserts));
    await sim.simulator.setDisappearing(friend.number, me.number, 86_400);
    await waitFor(() => chats.some((c) => c.id === friend.jid && c.ephemeralExpiration === 86_400), 'the chat\'s timer');
    assert.deepEqual([sim.simulator.chatTimer(me.number, friend.number).expiration, sim.simulator.chatTimer(me.number, friend.number).setBy], [86_400, friend.number]);
    // The client changes it back: the friend's phone decrypts the setting and the chat's timer follows.
    await client.sock!.sendMessage(friend.jid, { disappearingMessagesInChat: 604_800 });
    await waitFor(() => sim.simulator.chatTimer(friend.number, me.number).expiration === 604_800, 'the phone to take the client\'s setting');

    const group = sim.simulator.createGroup(friend.number, 'Some', [me.number]);
    sim.simulator.setGroupDisappearing(friend.number, group.jid, 7_776_000);
    await waitFor(() => chats.some((c) => c.id === group.jid && c.ephemeralExpiration === 7_776_000), 'the group\'s timer');
    assert.equal((await client.sock!.groupMetadata(group.jid)).ephemeralDuration, 7_776_000);
    await client.sock!.groupToggleEphemeral(group.jid, 0);
    assert.equal(sim.simulator.getGroup(group.jid).ephemeral, 0);
    assert.equal((await client.sock!.groupMetadata(group.jid)).ephemeralDuration, undefined);
    assert.throws(() => sim.simulator.setGroupDisappearing(friend.number, group.jid, 3600), /expiration must be one of/);
    await assert.rejects(client.sock!.groupToggleEphemeral(group.jid, 3600), /bad-request/);
    client.end();
  });

  it('a view-once image reaches the phone; its companion gets <unavailable type="view_once">', { timeout: 60_000 }, async () => {
    const { account: me, client } = await linked('5511987657031');
    const friend = sim.simulator.createAccount({ number: '5511987657032' });
    const sent = await sim.simulator.sendViewOnce(friend.number, me.number, { kind: 'image', data: JPEG, mimetype: 'image/jpeg', caption: 'só uma vez' });
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === sent.id), 'the companion\'s copy');
    const copy = client.seen.upserts.find((m) => m.key.id === sent.id)!;
    assert.deepEqual([copy.key.isViewOnce, copy.key.fromMe, copy.message ?? undefined, copy.messageStubType ?? undefined], [true, false, undefined, undefined]);
    const got = await waitForValue(() => sim.simulator.received(me.number).find((m) => m.id === sent.id));
    assert.equal((got.message.viewOnceMessageV2 as { message: { imageMessage: { viewOnce: boolean } } }).message.imageMessage.viewOnce, true);
    assert.deepEqual(sim.simulator.receivedMedia(me.number, sent.id).data, JPEG);
    client.end();
  });

  it('a message that never decrypts: Baileys asks for retries, the phone resends as broken up to its limit, Baileys keeps a CIPHERTEXT stub', { timeout: 60_000 }, async () => {
    const { account: me, client } = await linked('5511987657041');
    const friend = sim.simulator.createAccount({ number: '5511987657042' });
    const sent = await sim.simulator.sendUndecryptable(friend.number, me.number, 'ilegível');
    await waitFor(() => (sim.simulator.sent(friend.number).find((m) => m.id === sent.id)?.retries?.length ?? 0) >= 5, 'five retries', 30_000);
    const stubs = client.seen.upserts.filter((m) => m.key.id === sent.id);
    assert.ok(stubs.length >= 1 && stubs.every((m) => m.messageStubType === StubType.CIPHERTEXT), JSON.stringify(stubs));
    // The phone answers at most five retries per device; the phone itself got a good copy.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(sim.simulator.sent(friend.number).find((m) => m.id === sent.id)!.retries!.length, 5);
    assert.equal(sim.simulator.received(me.number).find((m) => m.id === sent.id)?.text, 'ilegível');
    client.end();
  });
});

async function waitForValue<T>(get: () => T | undefined): Promise<T> {
  let value: T | undefined;
  await waitFor(() => (value = get()) !== undefined, 'a value');
  return value!;
}
