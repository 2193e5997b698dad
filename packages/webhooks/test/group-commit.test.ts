import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Delivery, DeliveryQueue, LoggedEvent, NewDelivery, Storage } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { backends, createInstance, engineFor, eventually, initialized, textEvent } from './support/harness.js';

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
    return { durable: group.durable, leased: [] };
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

describe('engine on SQLite: deliveries leased as they are written', () => {
  let storage: Storage;
  let receiver: HttpReceiver;
  const claimed: Delivery[] = [];

  before(async () => {
    storage = await backends().find((b) => b.name === 'sqlite')!.open();
    const claim = storage.deliveries.claim.bind(storage.deliveries);
    storage.deliveries.claim = async (options) => {
      const answer = await claim(options);
      claimed.push(...answer);
      return answer;
    };
    receiver = await startHttpReceiver();
  });
  after(async () => {
    await receiver.close();
    await storage.close();
  });

  it('a delivery heading an empty lane goes out once durable without a claim; one behind a queued delivery waits for its turn', async () => {
    const engine = engineFor(storage, { retry: { schedule: [300], jitter: 0, maxRetryAfterMs: 1_000 } });
    const instance = await createInstance(storage, { webhookMessage: `${receiver.url}/leased` });
    let attempts = 0;
    // The second event's first attempt is refused: its retry holds the lane.
    receiver.respond(() => (++attempts === 2 ? { status: 500 } : {}));
    engine.start();
    try {
      const [first, second, third] = [1, 2, 3].map((n) => textEvent(instance, n));
      await engine.handle(first!, instance);
      await storage.flush();
      await receiver.waitFor(1);
      assert.equal(claimed.length, 0, 'sent without a claim');
      await engine.handle(second!, instance);
      await storage.flush();
      await receiver.waitFor(2);
      await engine.handle(third!, instance);
      await storage.flush();
      await eventually(() => storage.deliveries.stats(instance.id), (s) => s.totalSent === 3, 5_000);
      const order = receiver.requests.map((r) => r.body.match(/message (\d)/)?.[1]);
      assert.deepEqual(order, ['1', '2', '2', '3'], 'lane order kept: the third waited behind the retried second');
      assert.ok(claimed.some((d) => d.eventId === third!.id), 'the third was claimed once the lane was free');
      assert.equal(claimed.filter((d) => d.eventId === first!.id).length, 0);
    } finally {
      await engine.stop();
    }
  });
});
