import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import type { Delivery, NewDelivery } from '@parley/core';
import { newDelivery, queuedDelivery as queued, uniqueId } from './storage-fixtures.js';
import { withStorage, type OutboxHarness } from './storage-harness.js';

/** Fake times: the queue takes `now` from its caller, so no test sleeps. */
const T = 2_000_000;
const LEASE = 30_000;
const URL_1 = 'http://127.0.0.1:9301/hook';
const SINK = 'sink:conformance';


/** `count` deliveries of one lane, created 1 ms apart from `at`. */
function lane(instance: string, url: string, count: number, at = T): NewDelivery[] {
  return Array.from({ length: count }, (_, i) => newDelivery(instance, url, at + i));
}

/** DeliveryQueue batches: `claim` with `perLane`, `complete`, and `expedite` (sinks publish a lane's batch pipelined). */
export function describeDeliveryBatchCases(harness: OutboxHarness): void {
  describe('delivery batches', () => {
    it('claim with perLane answers each lane head first with the due ones behind it, in lane order', () => withStorage(harness, async ({ deliveries }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      const laneA = lane(a, URL_1, 5);
      const laneB = lane(b, URL_1, 2, T + 10);
      const late = newDelivery(a, URL_1, T + 1_000);
      await deliveries.enqueue([...laneA, late]);
      await deliveries.enqueue(laneB);
      // Lane a: its 5 due ones (3 at most per lane), never the one due later; lane b: both.
      assert.deepEqual(await deliveries.claim({ now: T + 100, limit: 10, leaseMs: LEASE, perLane: 3 }), [
        ...laneA.slice(0, 3).map((d) => queued(d)), ...laneB.map((d) => queued(d)),
      ]);
      // The whole batch rides on the head's lease: nothing of either lane is claimable now.
      assert.deepEqual(await deliveries.claim({ now: T + 100, limit: 10, leaseMs: LEASE, perLane: 3 }), []);
      // The lease expires (a crashed worker): the batch comes back, in order, with the one now due behind it.
      assert.deepEqual((await deliveries.claim({ now: T + 100 + LEASE, limit: 1, leaseMs: LEASE, perLane: 10 })).map((d) => d.id),
        [...laneA, late].map((d) => d.id));
    }));

    it('complete settles a batch in order: sent ones leave, the failed one waits, the rest are released without an attempt', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const items = lane(instance, SINK, 5);
      await deliveries.enqueue(items);
      const claimed = await deliveries.claim({ now: T + 10, limit: 10, leaseMs: LEASE, perLane: 5 });
      assert.deepEqual(claimed.map((d) => d.id), items.map((d) => d.id));
      await deliveries.complete([
        { id: items[0]!.id, outcome: 'sent', status: 0, responseTimeMs: 4 },
        { id: items[1]!.id, outcome: 'sent', status: 0, responseTimeMs: 6 },
        { id: items[2]!.id, outcome: 'failed', failure: { nextAttemptAt: T + 5_000, error: 'broker down' } },
        { id: items[3]!.id, outcome: 'released' },
        { id: items[4]!.id, outcome: 'released' },
        { id: uniqueId('dlv'), outcome: 'sent', status: 0, responseTimeMs: 1 },
      ]);
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 2, totalFailed: 1, totalPending: 3, avgResponseTime: 5 });
      // The failed one is the head again and holds its lane until its retry; then the rest follow, unattempted.
      assert.deepEqual(await deliveries.claim({ now: T + 4_999, limit: 10, leaseMs: LEASE, perLane: 5 }), []);
      assert.deepEqual(await deliveries.claim({ now: T + 5_000, limit: 10, leaseMs: LEASE, perLane: 5 }), [
        queued(items[2]!, { attempts: 1, nextAttemptAt: T + 5_000, lastError: 'broker down' }), queued(items[3]!), queued(items[4]!),
      ]);
      await deliveries.complete(items.slice(2).map((d) => ({ id: d.id, outcome: 'sent' as const, status: 0, responseTimeMs: 5 })));
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 5, totalFailed: 1, totalPending: 0, avgResponseTime: 5 });
      assert.equal(await deliveries.nextDueAt(), null);
    }));

    it('complete releasing a head makes its lane claimable at once, no attempt counted', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const items = lane(instance, SINK, 3);
      await deliveries.enqueue(items);
      await deliveries.claim({ now: T + 10, limit: 10, leaseMs: LEASE, perLane: 3 });
      await deliveries.complete(items.map((d) => ({ id: d.id, outcome: 'released' as const })));
      assert.deepEqual(await deliveries.claim({ now: T + 10, limit: 10, leaseMs: LEASE, perLane: 3 }), items.map((d) => queued(d)));
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 0, totalFailed: 0, totalPending: 3, avgResponseTime: 0 });
    }));

    it('complete dead-letters a failed one with a null retry; the rest of its lane goes on', () => withStorage(harness, async ({ deliveries }, clock) => {
      const instance = uniqueId('ins');
      const items = lane(instance, SINK, 3);
      await deliveries.enqueue(items);
      await deliveries.claim({ now: T + 10, limit: 10, leaseMs: LEASE, perLane: 3 });
      const deadAt = clock.now();
      await deliveries.complete([
        { id: items[0]!.id, outcome: 'failed', failure: { nextAttemptAt: null, error: 'refused' } },
        { id: items[1]!.id, outcome: 'released' },
        { id: items[2]!.id, outcome: 'released' },
      ]);
      const letters = await deliveries.deadLetters(instance, { limit: 10, offset: 0 });
      assert.deepEqual(letters, { items: [{ ...queued(items[0]!, { attempts: 1, lastError: 'refused' }), deadAt }], total: 1 });
      assert.deepEqual(await deliveries.claim({ now: T + 10, limit: 10, leaseMs: LEASE, perLane: 3 }), [queued(items[1]!), queued(items[2]!)]);
    }));

    it('expedite makes the postponed heads of one target due now without an attempt; leased heads and other targets wait', () => withStorage(harness, async ({ deliveries }) => {
      const [a, b, c] = [uniqueId('ins'), uniqueId('ins'), uniqueId('ins')];
      const [a1, a2] = lane(a, SINK, 2);
      const [b1] = lane(b, SINK, 1);
      const [c1] = lane(c, URL_1, 1);
      await deliveries.enqueue([a1!, a2!, b1!, c1!]);
      await deliveries.claim({ now: T + 10, limit: 10, leaseMs: LEASE });
      await deliveries.fail(a1!.id, { nextAttemptAt: T + 60_000, error: 'broker down' });
      await deliveries.fail(c1!.id, { nextAttemptAt: T + 60_000, error: 'HTTP 503', status: 503 });
      // b1 stays leased (in flight).
      assert.equal(await deliveries.expedite(SINK, T + 20), 1);
      assert.equal(await deliveries.expedite(SINK, T + 20), 0);
      assert.deepEqual(await deliveries.claim({ now: T + 20, limit: 10, leaseMs: LEASE, perLane: 2 }), [
        queued(a1!, { attempts: 1, nextAttemptAt: T + 20, lastError: 'broker down' }), queued(a2!),
      ]);
      assert.equal(await deliveries.nextDueAt(), T + 10 + LEASE);
      assert.deepEqual(await deliveries.stats(a), { totalSent: 0, totalFailed: 1, totalPending: 2, avgResponseTime: 0 });
    }));
  });
}
