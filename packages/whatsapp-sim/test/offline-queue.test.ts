import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto, type MessageUpsertType } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { controlApi, TestClient, waitFor, useSimulator } from './client.js';

describe('the offline queue, handed over in the batches the client asks for', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });
  const call = controlApi(() => sim);

  it('230 stored messages arrive in batches of 100 as `append` upserts, in order, once each, and messages sent meanwhile once too', { timeout: 90_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987652301' });
    const friend = sim.simulator.createAccount({ number: '5511987652302', pushName: 'Bia' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    client.end();
    await waitFor(() => client.closed, 'the client to go offline');

    const stored: string[] = [];
    for (let i = 0; i < 230; i++) stored.push((await sim.simulator.sendText(friend.number, me.number, `guardada ${i}`)).id);
    const sock = client.connect();
    const upserts: Array<{ id: string; type: MessageUpsertType }> = [];
    sock.ev.on('messages.upsert', ({ messages, type }) => upserts.push(...messages.map((m) => ({ id: m.key.id!, type }))));
    // Sent while the stored ones are handed over or processed. Baileys works through stanzas marked offline one
    // by one (Utils/offline-node-processor.js) and handles live ones at once, so these may come first.
    await waitFor(() => client.seen.updates.some((u) => u.connection === 'open'), 'the login');
    const live: string[] = [];
    for (let i = 0; i < 3; i++) live.push((await sim.simulator.sendText(friend.number, me.number, `ao vivo ${i}`)).id);

    await waitFor(() => upserts.length >= stored.length + live.length, 'every message', 60_000);
    await waitFor(() => client.seen.updates.some((u) => u.receivedPendingNotifications === true), 'the end of the offline queue');
    assert.deepEqual(upserts.map((u) => u.id).sort(), [...stored, ...live].sort(), 'each once');
    const storedUpserts = upserts.filter((u) => stored.includes(u.id));
    assert.deepEqual(storedUpserts.map((u) => u.id), stored, 'the stored ones in the order they were sent');
    assert.deepEqual([...new Set(storedUpserts.map((u) => u.type))], ['append'], 'stored messages are marked offline');

    const requests = sim.simulator.stanzas(me.number, 'ib').filter((s) => JSON.stringify(s.stanza).includes('offline_batch'));
    assert.equal(requests.length, 3, 'three batches of up to 100 for 233 stanzas');
    client.end();
  });

  it('a login with nothing stored ends the offline queue at once', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987652311' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    await waitFor(() => client.seen.updates.some((u) => u.receivedPendingNotifications === true), 'the end of the (empty) offline queue');
    assert.equal(sim.simulator.stanzas(me.number, 'ib').filter((s) => JSON.stringify(s.stanza).includes('offline_batch')).length, 0);
    client.end();
  });

  it('`companions: "after-history"`: a RECENT chunk holding the text, then the text, in one offline batch: Baileys keeps it in the history set and never upserts it', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987652321' });
    const friend = sim.simulator.createAccount({ number: '5511987652322', pushName: 'Bia' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    // After its first sync (Baileys counts it in accountSyncCounter) a login holds events only until `<ib><offline>`.
    await waitFor(() => (client.auth.creds.accountSyncCounter ?? 0) > 0, 'the first history and app-state sync');
    client.end();
    await waitFor(() => client.closed, 'the client to go offline');

    const sent = await call('POST', `/accounts/${friend.number}/messages`, { to: me.number, text: 'atrás do histórico', companions: 'after-history' });
    assert.equal(sent.status, 201);
    client.connect();
    await waitFor(() => client.seen.histories.some((set) => set.messages.some((m) => m.key.id === sent.body.id)), 'the chunk');
    await waitFor(() => client.seen.updates.some((u) => u.receivedPendingNotifications === true), 'the end of the offline queue');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [set] = client.seen.histories.filter((s) => s.messages.some((m) => m.key.id === sent.body.id));
    assert.equal(set!.syncType, proto.HistorySync.HistorySyncType.RECENT);
    assert.equal(set!.messages.find((m) => m.key.id === sent.body.id)!.message?.conversation, 'atrás do histórico');
    assert.deepEqual(client.seen.upserts.filter((m) => m.key.id === sent.body.id), [], 'the live copy came behind the set and was folded into it (Utils/event-buffer.js; in the other order Baileys upserts it)');
    assert.equal(sim.simulator.received(me.number).at(-1)!.id, sent.body.id, 'the phone got it too');
    client.end();
  });
});
