import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DeliveryQueue, LoggedEvent, NewDelivery, Storage } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { createInstance, engineFor, eventually, initialized, textEvent } from './support/harness.js';

/**
 * A delivery queue that commits in groups, as SQLite's does: `enqueueInBatch` holds the writes in an open
 * group (no claim sees them) until the test commits it — then they are in the queue and `durable`
 * resolves — or discards it: they are gone and `durable` rejects.
 */
function groupCommitQueue(base: DeliveryQueue) {
  let group: { writes: [NewDelivery[], LoggedEvent[]][]; durable: Promise<void>; settle: (err?: Error) => void } | null = null;
  const calls: NewDelivery[][] = [];
  const queue: DeliveryQueue = Object.create(base) as DeliveryQueue;
  queue.enqueueInBatch = async (deliveries, events = []) => {
    calls.push(deliveries);
    if (!group) {
      let settle!: (err?: Error) => void;
      const durable = new Promise<void>((resolve, reject) => (settle = (err) => (err ? reject(err) : resolve())));
      durable.catch(() => undefined);
      group = { writes: [], durable, settle };
    }
    group.writes.push([deliveries, events]);
    return { durable: group.durable };
  };
  return {
    queue, calls,
    async commit() {
      const open = group!;
      group = null;
      for (const [deliveries, events] of open.writes) await base.enqueue(deliveries, events);
      open.settle();
    },
    discard() {
      const open = group!;
      group = null;
      open.settle(new Error('sqlite commit failed: SQLITE_FULL'));
    },
  };
}

describe('engine writing into a group commit (enqueueInBatch)', () => {
  let storage: Storage;
  let receiver: HttpReceiver;
  let group: ReturnType<typeof groupCommitQueue>;

  before(async () => {
    const base = await initialized(new MemoryStorage());
    group = groupCommitQueue(base.deliveries);
    storage = Object.assign(Object.create(base) as Storage, { deliveries: group.queue });
    receiver = await startHttpReceiver();
  });
  after(async () => {
    await receiver.close();
    await storage.close();
  });

  it('an event whose group was discarded is queued again when handled again; once its group committed it is not; delivered once, only once durable', async () => {
    // No housekeeping sweep during the test: only the engine's own wake-ups start a claim.
    const engine = engineFor(storage, { housekeeping: { sweepCron: '0 0 1 1 *', purgeCron: '0 0 1 1 *', deadLetterRetentionMs: 60_000 } });
    const instance = await createInstance(storage, { webhookMessage: `${receiver.url}/group` });
    const event = textEvent(instance, 1);
    engine.start();
    try {
      await engine.handle(event, instance);
      assert.equal(group.calls.length, 1, 'written into the open group when handle resolved');
      group.discard();
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The bus handles the event again after a discarded commit: its deliveries are gone, so they are written again.
      await engine.handle(event, instance);
      assert.equal(group.calls.length, 2, 'queued again after the discard');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(receiver.requests.length, 0, 'nothing sent before the group is durable');
      await group.commit();
      // Woken by the commit (no sweep runs): sent at once.
      await eventually(async () => receiver.requests.length, (n) => n === 1, 2_000);
      // Handled again once durable (a later commit of the instance failed): not queued a second time.
      await engine.handle(event, instance);
      assert.equal(group.calls.length, 2, 'not queued again once durable');
      await eventually(() => storage.deliveries.stats(instance.id), (s) => s.totalSent === 1 && s.totalPending === 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(receiver.requests.map((r) => r.url), ['/group'], 'delivered exactly once');
    } finally {
      await engine.stop();
    }
  });
});
