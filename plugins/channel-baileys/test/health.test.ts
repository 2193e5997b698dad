import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto, type WAMessageUpdate } from '@whiskeysockets/baileys';
import { connectOpen, createHarness, NOW, PEER_JID } from './harness.js';

const failed = (id: string): WAMessageUpdate => ({
  key: { remoteJid: PEER_JID, fromMe: true, id }, update: { status: proto.WebMessageInfo.Status.ERROR, messageStubParameters: ['463'] },
});
const acked = (id: string): WAMessageUpdate => ({ key: { remoteJid: PEER_JID, fromMe: true, id }, update: { status: proto.WebMessageInfo.Status.SERVER_ACK } });

describe('health: restriction signals → health events', () => {
  it('health: repeated 463 send failures restrict; an accepted message lifts it', async () => {
    const clock = { now: NOW };
    const h = await createHarness({ now: () => clock.now, options: { health: { failedSendThreshold: 3, failedSendWindowMs: 600_000 } } });
    const socket = await connectOpen(h);
    for (const id of ['F1', 'F2', 'F3', 'F4']) {
      clock.now += 1000;
      socket.emit('messages.update', [failed(id)]);
    }
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('health'), [{
      type: 'health', status: 'restricted', previous: 'healthy', reason: '3 messages failed with error 463 (account restricted) within 10 minutes',
      shouldPause: true, shouldRotate: false,
    }]);
    socket.emit('messages.update', [acked('OK1')]);
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('health').slice(1), [{
      type: 'health', status: 'healthy', previous: 'restricted', reason: 'messages are accepted again', shouldPause: false, shouldRotate: false,
    }]);
    await h.adapter.stop();
  });

  it('failures spread wider than the window do not restrict', async () => {
    const clock = { now: NOW };
    const h = await createHarness({ now: () => clock.now, options: { health: { failedSendThreshold: 2, failedSendWindowMs: 60_000 } } });
    const socket = await connectOpen(h);
    for (const id of ['F1', 'F2', 'F3']) {
      clock.now += 61_000;
      socket.emit('messages.update', [failed(id)]);
      await h.settle();
    }
    assert.deepStrictEqual(h.eventsOf('health'), []);
    await h.adapter.stop();
  });

  it('the reach-out timelock restricts (policy violations ask for rotation) until WhatsApp lifts it', async () => {
    const h = await createHarness();
    const socket = await connectOpen(h);
    socket.emit('connection.update', {
      reachoutTimeLock: { isActive: true, enforcementType: 'BIZ_COMMERCE_VIOLATION_ADULT' as never, timeEnforcementEnds: new Date(Date.UTC(2025, 0, 2)) },
    });
    socket.emit('connection.update', { reachoutTimeLock: { isActive: false } });
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('health'), [
      {
        type: 'health', status: 'restricted', previous: 'healthy',
        reason: 'WhatsApp restricted new conversations (reach-out timelock BIZ_COMMERCE_VIOLATION_ADULT) until 2025-01-02T00:00:00.000Z',
        shouldPause: true, shouldRotate: true,
      },
      { type: 'health', status: 'healthy', previous: 'restricted', reason: 'the reach-out timelock was lifted', shouldPause: false, shouldRotate: false },
    ]);
    await h.adapter.stop();
  });

  it('the new-chat message cap restricts; a second restriction is reported while restricted', async () => {
    const h = await createHarness();
    const socket = await connectOpen(h);
    socket.emit('message-capping.update', { capping_status: 'CAPPED' as never, total_quota: 250, used_quota: 250 });
    await h.settle();
    socket.emit('connection.update', { reachoutTimeLock: { isActive: true } });
    socket.emit('message-capping.update', { capping_status: 'NONE' as never });
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('health'), [
      { type: 'health', status: 'restricted', previous: 'healthy', reason: 'new-chat message cap reached (250/250)', shouldPause: true, shouldRotate: true },
      {
        type: 'health', status: 'restricted', previous: 'restricted', reason: 'WhatsApp restricted new conversations (reach-out timelock DEFAULT)',
        shouldPause: true, shouldRotate: false,
      },
    ]);
    await h.adapter.stop();
  });

  it('a 403 close restricts with rotation and stops reconnecting; the open of an explicit connect lifts it', async () => {
    const h = await createHarness({ options: { reconnect: { baseDelayMs: 0, maxDelayMs: 0, jitter: 0 } } });
    const socket = await connectOpen(h);
    socket.close(403);
    await h.settle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(h.sockets.all.length, 1, 'a banned number is not retried');
    const connecting = h.adapter.capabilities.connection!.connect();
    (await h.sockets.next(2)).open({ id: '5511900000001:12@s.whatsapp.net' });
    await connecting;
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('health'), [
      {
        type: 'health', status: 'restricted', previous: 'healthy', reason: 'WhatsApp refused the connection (403 forbidden): the number may be banned',
        shouldPause: true, shouldRotate: true,
      },
      { type: 'health', status: 'healthy', previous: 'restricted', reason: 'the connection was accepted again', shouldPause: false, shouldRotate: false },
    ]);
    await h.adapter.stop();
  });

  it('a restriction stored on the instance is lifted by the first positive signal', async () => {
    const h = await createHarness({ instance: { health: 'restricted' } });
    await connectOpen(h);
    // connectOpen cleared the events; the open's timelock check already answered "not active".
    const socket = h.sockets.last();
    socket.emit('connection.update', { reachoutTimeLock: { isActive: false } });
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('health'), []);
    const again = await createHarness({ instance: { health: 'restricted' } });
    const connecting = again.adapter.capabilities.connection!.connect();
    (await again.sockets.next(1)).open({ id: '5511900000001:12@s.whatsapp.net' });
    await connecting;
    await again.settle();
    assert.deepStrictEqual(again.eventsOf('health'), [
      { type: 'health', status: 'healthy', previous: 'restricted', reason: 'the reach-out timelock was lifted', shouldPause: false, shouldRotate: false },
    ]);
    await h.adapter.stop();
    await again.adapter.stop();
  });
});
