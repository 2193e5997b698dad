import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import { decodeStored, encodeStored, type StoreLifecycle } from '@parley/core';
import { filledInstanceRecord, messageRecord, newDelivery, uniqueId } from './storage-fixtures.js';
import { FakeClock } from './fake-clock.js';
import { reopenStorage, type OutboxHarness, type RecordStoreHarness, type StoreHarness } from './storage-harness.js';

const T = 1_000_000;
const CHAT = '5511988887777@s.whatsapp.net';

/** Runs `body` on a storage that is closed and reopened in the middle, and closes whichever is open. */
async function acrossReopen<S extends StoreLifecycle>(
  harness: StoreHarness<S> & Required<Pick<StoreHarness<S>, 'reopen'>>,
  write: (storage: S) => Promise<void>,
  verify: (storage: S) => Promise<void>,
): Promise<void> {
  let storage = await harness.create(new FakeClock());
  await storage.init();
  try {
    await write(storage);
    storage = await reopenStorage(harness, storage);
    await verify(storage);
  } finally {
    await storage.close();
  }
}

/** Every record written survives close and reopen. Runs only for harnesses that can reopen. */
export function describeRecordPersistenceCases(harness: RecordStoreHarness): void {
  const { reopen } = harness;
  if (!reopen) return;
  const durable = { ...harness, reopen };

  describe('persistence across close and reopen', () => {
    it('keeps instances, messages, chats, contacts, media, auth state and plugin state', async () => {
      const record = filledInstanceRecord();
      const instance = record.id;
      const message = messageRecord(CHAT, 'M1', 1_700_000_000, 'READ');
      const bytes = Buffer.from([0, 1, 2, 253, 254, 255]);
      const creds = encodeStored({ noiseKey: { private: Buffer.from('secret bytes'), public: new Uint8Array([1, 2]) }, registrationId: 7 });
      const ns = uniqueId('sandbox');
      await acrossReopen(durable, async (storage) => {
        await storage.instances.create(record);
        await storage.messages.upsert(instance, message);
        await storage.messages.upsert(instance, messageRecord(CHAT, 'M0', 1_600_000_000));
        await storage.chats.upsert(instance, { id: CHAT, name: 'Alice', timestamp: 1_700_000_000, unreadCount: 2 });
        await storage.contacts.upsert(instance, { id: CHAT, notify: 'Ali' });
        await storage.media.put(instance, 'M1', { data: bytes, mimetype: 'image/png', fileName: 'a.png' });
        await storage.authState.set(instance, [{ category: 'creds', id: 'creds', value: creds }, { category: 'pre-key', id: '1', value: '"k"' }]);
        await storage.state.put(ns, 'network', { phones: ['5511999990000'] });
      }, async (storage) => {
        assert.deepEqual((await storage.health()).ready, true);
        assert.deepEqual(await storage.instances.get(instance), record);
        assert.deepEqual(await storage.instances.findByKey(record.key), record);
        assert.deepEqual(await storage.instances.list(), [record]);
        assert.deepEqual(await storage.messages.listByChat(instance, CHAT, { page: 1, limit: 10 }), {
          items: [message, messageRecord(CHAT, 'M0', 1_600_000_000)], total: 2,
        });
        assert.deepEqual(await storage.chats.list(instance), [{ id: CHAT, name: 'Alice', timestamp: 1_700_000_000, unreadCount: 2 }]);
        assert.deepEqual(await storage.contacts.list(instance), [{ id: CHAT, name: '', notify: 'Ali' }]);
        const blob = await storage.media.get(instance, 'M1');
        assert.ok(blob && Buffer.isBuffer(blob.data));
        assert.deepEqual(blob, { data: bytes, mimetype: 'image/png', fileName: 'a.png' });
        const auth = await storage.authState.get(instance, 'creds', ['creds']);
        assert.deepEqual(auth, { creds });
        assert.ok(decodeStored<{ noiseKey: { private: Buffer } }>(auth.creds!).noiseKey.private.equals(Buffer.from('secret bytes')));
        assert.deepEqual(await storage.authState.get(instance, 'pre-key', ['1']), { 1: '"k"' });
        assert.deepEqual(await storage.state.list(ns), [{ id: 'network', value: { phones: ['5511999990000'] } }]);
      });
    });
  });
}

/** The outbox's deliveries survive close and reopen. Runs only for harnesses that can reopen. */
export function describeOutboxPersistenceCases(harness: OutboxHarness): void {
  const { reopen } = harness;
  if (!reopen) return;
  const durable = { ...harness, reopen };

  describe('persistence across close and reopen', () => {
    it('keeps queued deliveries with their schedule and lane order, dead letters and statistics', async () => {
      const instance = uniqueId('ins');
      const url = 'http://127.0.0.1:9001/hook';
      const retried = newDelivery(instance, url, T);
      const waiting = newDelivery(instance, url, T);
      const dead = newDelivery(instance, 'http://127.0.0.1:9002/hook', T);
      const sent = newDelivery(instance, 'http://127.0.0.1:9003/hook', T);
      let deadAt = 0;
      await acrossReopen(durable, async (storage) => {
        const { deliveries } = storage;
        await deliveries.enqueue([retried, waiting, dead, sent]);
        await deliveries.claim({ now: T, limit: 10, leaseMs: 1_000 });
        await deliveries.ack(sent.id, { status: 200, responseTimeMs: 20 });
        await deliveries.fail(retried.id, { nextAttemptAt: T + 5_000, error: 'HTTP 500', status: 500, responseTimeMs: 40 });
        await deliveries.fail(dead.id, { nextAttemptAt: null, error: 'HTTP 410', status: 410 });
        deadAt = (await deliveries.deadLetters(instance, { limit: 1, offset: 0 })).items[0]!.deadAt;
      }, async ({ deliveries }) => {
        assert.deepEqual(await deliveries.stats(instance), { totalSent: 1, totalFailed: 2, totalPending: 2, avgResponseTime: 30 });
        assert.deepEqual(await deliveries.deadLetters(instance, { limit: 10, offset: 0 }), {
          items: [{ ...dead, attempts: 1, nextAttemptAt: T, lastError: 'HTTP 410', lastStatus: 410, deadAt }], total: 1,
        });
        assert.equal(await deliveries.nextDueAt(), T + 5_000);
        assert.deepEqual(await deliveries.claim({ now: T + 4_999, limit: 10, leaseMs: 1_000 }), []);
        assert.deepEqual(await deliveries.claim({ now: T + 5_000, limit: 10, leaseMs: 1_000 }), [
          { ...retried, attempts: 1, nextAttemptAt: T + 5_000, lastError: 'HTTP 500', lastStatus: 500 },
        ]);
        await deliveries.ack(retried.id, { status: 200, responseTimeMs: 60 });
        assert.deepEqual(await deliveries.claim({ now: T + 5_000, limit: 10, leaseMs: 1_000 }), [{ ...waiting, attempts: 0, nextAttemptAt: T }]);
        assert.deepEqual(await deliveries.stats(instance), { totalSent: 2, totalFailed: 2, totalPending: 1, avgResponseTime: 40 });
      });
    });
  });
}
