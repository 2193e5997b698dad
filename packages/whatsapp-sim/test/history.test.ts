import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { downloadMediaMessage } from '@whiskeysockets/baileys';
import { trustSimulatorMedia } from '../src/index.js';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('first login: initial history and app state', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('a Baileys client gets the phone\'s bootstrap and an empty app state, and goes online', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659101', pushName: 'Maria' });
    const friend = sim.simulator.createAccount({ number: '5511987659102' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    // Baileys counts a completed initial sync (history processed, app state synced) here; its 20 s
    // fallback for a missing history does not.
    await waitFor(() => client.auth.creds.accountSyncCounter === 1, 'the initial sync to complete', 15_000);
    assert.equal(client.auth.creds.processedHistoryMessages.length, 1);
    const sent = await sim.simulator.sendText(friend.number, me.number, 'depois da sincronização');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === sent.id), 'the message');
    client.end();
  });

  it('the phone\'s seeded history (chats, messages, images on the media host) reaches a newly linked Baileys', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659111', pushName: 'Rita' });
    await assert.rejects(sim.simulator.seedHistory(me.number, { chats: 0, messagesPerChat: 1 }), /chats must be/);
    const seeded = await sim.simulator.seedHistory(me.number, { chats: 3, messagesPerChat: 4, mediaEvery: 2 });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    await waitFor(() => client.auth.creds.accountSyncCounter === 1, 'the initial sync to complete', 15_000);
    const chats = client.seen.histories.flatMap((s) => s.chats);
    const messages = client.seen.histories.flatMap((s) => s.messages);
    assert.deepEqual(chats.map((c) => c.id).sort(), seeded.chats.map((c) => c.jid).sort());
    assert.deepEqual(messages.map((m) => m.key.id).sort(), seeded.chats.flatMap((c) => c.messageIds).sort());
    assert.equal(chats.find((c) => c.id === seeded.chats[0]!.jid)?.name, 'Contato 1');
    const first = messages.find((m) => m.key.id === seeded.chats[0]!.messageIds[0])!;
    assert.deepEqual([first.message?.conversation, first.key.fromMe], ['Mensagem 1 de Contato 1', false]);
    const image = messages.find((m) => m.key.id === seeded.chats[0]!.messageIds[1])!;
    assert.equal(image.key.fromMe, true);
    assert.equal(image.message?.imageMessage?.caption, 'Mensagem 2 de Contato 1');
    const untrustMedia = trustSimulatorMedia(sim.mediaCertificate);
    try {
      const bytes = await downloadMediaMessage(image, 'buffer', {});
      assert.deepEqual(bytes.subarray(0, 4), Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
    } finally {
      untrustMedia();
    }
    client.end();
  });

  it('a history larger than one chunk arrives as the bootstrap and RECENT chunks, every message once', { timeout: 90_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659121', pushName: 'Lia' });
    await assert.rejects(sim.simulator.seedHistory(me.number, { chats: 1000, messagesPerChat: 101 }), /at most 100000/);
    // 3 chats of 900: two whole chats in the bootstrap (1,800 ≤ 2,000), the third in a RECENT chunk.
    const seeded = await sim.simulator.seedHistory(me.number, { chats: 3, messagesPerChat: 900 });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const expected = seeded.chats.flatMap((c) => c.messageIds).sort();
    await waitFor(() => client.seen.histories.reduce((n, s) => n + s.messages.length, 0) >= expected.length, 'every history message', 60_000);
    assert.deepEqual(client.seen.histories.flatMap((s) => s.messages.map((m) => m.key.id!)).sort(), expected);
    // Baileys' event buffer may fold the chunks into one `messaging-history.set`; it records each history notification it processed.
    await waitFor(() => client.auth.creds.processedHistoryMessages.length === 2, 'both history notifications to be processed');
    client.end();
  });

  it('each chat\'s state travels in the history: unread counts, a 1:1 disappearing timer, and a companion\'s own pin for the next companion', { timeout: 90_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659131', pushName: 'Lia' });
    const friend = sim.simulator.createAccount({ number: '5511987659132' });
    await assert.rejects(sim.simulator.seedHistory(me.number, { chats: 1, messagesPerChat: 1, unreadPerChat: -1 }), /unreadPerChat must be/);
    const seeded = await sim.simulator.seedHistory(me.number, { chats: 2, messagesPerChat: 4, unreadPerChat: 1 });
    const [first, second] = seeded.chats.map((c) => c.jid) as [string, string];
    await sim.simulator.setDisappearing(me.number, friend.number, 86_400);
    const chatsOf = (client: TestClient) => client.seen.histories.flatMap((h) => h.chats);
    const linked = new TestClient(sim.url);
    await linked.link((qr) => sim.simulator.scanQr(me.number, qr));
    await waitFor(() => linked.auth.creds.accountSyncCounter === 1, 'the initial sync to complete', 15_000);
    const got = chatsOf(linked);
    assert.deepEqual(got.filter((c) => c.id === first || c.id === second).map((c) => c.unreadCount), [1, 1]);
    const timer = got.find((c) => c.id === friend.jid);
    assert.equal(timer?.ephemeralExpiration, 86_400, JSON.stringify(got));
    assert.ok(Number(timer?.ephemeralSettingTimestamp) > 0);
    assert.ok(!got.find((c) => c.id === first)?.pinned);

    // The companion pins a chat (its own app-state patch): the phone keeps it, and the next companion's history has it.
    await linked.sock!.chatModify({ pin: true }, first);
    const next = new TestClient(sim.url);
    await next.link((qr) => sim.simulator.scanQr(me.number, qr));
    await waitFor(() => chatsOf(next).some((c) => c.id === first), 'the second companion\'s history');
    assert.ok(Number(chatsOf(next).find((c) => c.id === first)?.pinned) > 0);
    assert.ok(!chatsOf(next).find((c) => c.id === second)?.pinned);
    linked.end();
    next.end();
  });
});
