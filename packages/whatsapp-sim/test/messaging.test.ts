import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { proto } from '@whiskeysockets/baileys';
import { startSimulator, trustSimulatorRoot } from '../src/index.js';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor } from './client.js';

describe('1:1 messages with real Signal between Baileys and simulated phones', () => {
  let sim: RunningSimulator;
  let untrust: () => void;
  before(async () => {
    sim = await startSimulator();
    untrust = trustSimulatorRoot(sim.rootPublicKey);
  });
  after(async () => {
    untrust();
    await sim.stop();
  });

  it('Baileys sends a text: the phone decrypts it, the sender sees delivery and read receipts', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987652001' });
    const friend = sim.simulator.createAccount({ number: '5511987652002', pushName: 'Bia' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const sent = await client.sock!.sendMessage(friend.jid, { text: 'olá, Bia' });
    await waitFor(() => sim.simulator.received(friend.number).length > 0, 'the phone to receive');
    const [got] = sim.simulator.received(friend.number);
    assert.equal(got!.text, 'olá, Bia');
    assert.equal(got!.id, sent!.key.id);
    assert.equal(got!.fromNumber, me.number);
    assert.equal(got!.type, 'pkmsg');
    await waitFor(() => client.statusOf(sent!.key.id!) === proto.WebMessageInfo.Status.DELIVERY_ACK, 'the delivery receipt');
    sim.simulator.markRead(friend.number, got!.id);
    await waitFor(() => client.statusOf(sent!.key.id!) === proto.WebMessageInfo.Status.READ, 'the read receipt');
    const second = await client.sock!.sendMessage(friend.jid, { text: 'segunda' });
    await waitFor(() => sim.simulator.received(friend.number).length > 1, 'the second message');
    assert.equal(sim.simulator.received(friend.number)[1]!.text, 'segunda');
    assert.equal(sim.simulator.received(friend.number)[1]!.id, second!.key.id);
    client.end();
  });

  it('a phone sends a text: Baileys decrypts it and emits messages.upsert; its receipt reaches the phone', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987652011' });
    const friend = sim.simulator.createAccount({ number: '5511987652012', pushName: 'Caio' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const sent = await sim.simulator.sendText(friend.number, me.number, 'oi do celular');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === sent.id), 'messages.upsert');
    const message = client.seen.upserts.find((m) => m.key.id === sent.id)!;
    assert.equal(message.message?.conversation, 'oi do celular');
    assert.equal(message.key.fromMe, false);
    assert.equal(message.key.remoteJid, friend.jid);
    assert.equal(message.pushName, 'Caio');
    await waitFor(() => sim.simulator.sent(friend.number)[0]!.receipts.length > 0, 'the delivery receipt at the phone');
    assert.deepEqual(sim.simulator.sent(friend.number)[0]!.receipts.map((r) => [r.from, r.type]), [[`${me.number}:1@s.whatsapp.net`, 'delivery']]);
    await client.sock!.readMessages([message.key]);
    await waitFor(() => sim.simulator.sent(friend.number)[0]!.receipts.length > 1, 'the read receipt at the phone');
    assert.equal(sim.simulator.sent(friend.number)[0]!.receipts[1]!.type, 'read');
    const reply = await client.sock!.sendMessage(friend.jid, { text: 'recebi' });
    await waitFor(() => sim.simulator.received(friend.number).some((m) => m.id === reply!.key.id), 'the reply at the phone');
    assert.equal(sim.simulator.received(friend.number).find((m) => m.id === reply!.key.id)!.text, 'recebi');
    client.end();
  });
});
