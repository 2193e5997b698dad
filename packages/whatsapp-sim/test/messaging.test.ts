import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { proto } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('1:1 messages with real Signal between Baileys and simulated phones', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

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
    const receipts = () => sim.simulator.sent(friend.number)[0]!.receipts.map((r) => `${r.from} ${r.type}`).sort();
    // Both of my devices got it: my phone and this companion each answer a delivery receipt.
    await waitFor(() => receipts().length === 2, 'the delivery receipts at the phone');
    assert.deepEqual(receipts(), [`${me.jid} delivery`, `${me.number}:1@s.whatsapp.net delivery`].sort());
    await client.sock!.readMessages([message.key]);
    await waitFor(() => receipts().length === 3, 'the read receipt at the phone');
    assert.ok(receipts().includes(`${me.number}:1@s.whatsapp.net read`));
    const reply = await client.sock!.sendMessage(friend.jid, { text: 'recebi' });
    await waitFor(() => sim.simulator.received(friend.number).some((m) => m.id === reply!.key.id), 'the reply at the phone');
    assert.equal(sim.simulator.received(friend.number).find((m) => m.id === reply!.key.id)!.text, 'recebi');
    client.end();
  });

  it('copies reach the sender\'s other devices (fromMe) and an offline device gets them at its next login', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987652021' });
    const friend = sim.simulator.createAccount({ number: '5511987652022' });
    const laptop = new TestClient(sim.url);
    await laptop.link((qr) => sim.simulator.scanQr(me.number, qr));
    const desktop = new TestClient(sim.url);
    await desktop.link((qr) => sim.simulator.scanQr(me.number, qr));
    assert.deepEqual(sim.simulator.getAccount(me.number).devices.map((d) => d.id), [1, 2]);
    const sent = await laptop.sock!.sendMessage(friend.jid, { text: 'de um aparelho' });
    await waitFor(() => desktop.seen.upserts.some((m) => m.key.id === sent!.key.id), 'the copy on the other device');
    const copy = desktop.seen.upserts.find((m) => m.key.id === sent!.key.id)!;
    assert.equal(copy.key.fromMe, true);
    assert.equal(copy.key.remoteJid, friend.jid);
    assert.equal(copy.message?.conversation ?? copy.message?.extendedTextMessage?.text, 'de um aparelho');
    await waitFor(() => sim.simulator.received(friend.number).some((m) => m.id === sent!.key.id), 'the phone to receive');
    const fromPhone = await sim.simulator.sendText(me.number, friend.number, 'do celular');
    await waitFor(() => laptop.seen.upserts.some((m) => m.key.id === fromPhone.id), 'the phone\'s own message on the laptop');
    assert.equal(laptop.seen.upserts.find((m) => m.key.id === fromPhone.id)!.key.fromMe, true);
    desktop.end();
    await waitFor(() => desktop.closed, 'the desktop to go offline');
    const whileAway = await sim.simulator.sendText(friend.number, me.number, 'enquanto fora');
    desktop.connect();
    await waitFor(() => desktop.seen.upserts.some((m) => m.key.id === whileAway.id), 'the stored message at the next login');
    assert.equal(desktop.seen.upserts.find((m) => m.key.id === whileAway.id)!.message?.conversation, 'enquanto fora');
    laptop.end();
    desktop.end();
  });

  it('fifteen messages sent at once all decrypt at the phone', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987652031' });
    const friend = sim.simulator.createAccount({ number: '5511987652032' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const texts = Array.from({ length: 15 }, (_, i) => `mensagem ${i}`);
    await Promise.all(texts.map((text) => client.sock!.sendMessage(friend.jid, { text })));
    await waitFor(() => sim.simulator.received(friend.number).length === texts.length, 'every message');
    assert.deepEqual(sim.simulator.received(friend.number).map((m) => m.text).sort(), [...texts].sort());
    client.end();
  });

  it('a phone texts another phone: decrypted there, with the delivery receipt back', { timeout: 30_000 }, async () => {
    const a = sim.simulator.createAccount({ number: '5511987652041' });
    const b = sim.simulator.createAccount({ number: '5511987652042' });
    const sent = await sim.simulator.sendText(a.number, b.number, 'de celular para celular');
    assert.deepEqual(sim.simulator.received(b.number).map((m) => [m.id, m.text, m.fromNumber]), [[sent.id, 'de celular para celular', a.number]]);
    assert.deepEqual(sim.simulator.sent(a.number)[0]!.receipts.map((r) => [r.from, r.type]), [[b.jid, 'delivery']]);
    sim.simulator.markRead(b.number, sent.id);
    assert.deepEqual(sim.simulator.sent(a.number)[0]!.receipts.map((r) => r.type), ['delivery', 'read']);
  });
});
