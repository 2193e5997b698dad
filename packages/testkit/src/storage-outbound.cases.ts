import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import type { NewOutbound, Outbound } from '@parley/core';
import { uniqueId } from './storage-fixtures.js';
import { reopenStorage, withStorage, type OutboxHarness } from './storage-harness.js';

/** Fake times: the queue takes `now` from its caller, so no test sleeps. */
const T = 2_000_000;
const LEASE = 30_000;
const BOUND = 1_000;

function send(instance: string, lane: string, dueAt: number, id = uniqueId('msg')): NewOutbound {
  return { id, instance, lane, dueAt, createdAt: T, payload: JSON.stringify({ to: lane, text: id }) };
}

/** What a fresh entry reads as, with optional bookkeeping changes. */
function queued(item: NewOutbound, changes: Partial<Outbound> = {}): Outbound {
  return { ...item, order: item.dueAt, attempts: 0, ...changes };
}

const ids = (items: { id: string }[]) => items.map((i) => i.id);

/** OutboundQueue: durable per-instance send queue with lanes per recipient, leases, pause and a bound. */
export function describeOutboundCases(harness: OutboxHarness): void {
  describe('outbound queue', () => {
    it('enqueue stores once per id, claim answers due entries only, with a lease', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const a = send(instance, 'lane-a', T + 100);
      assert.equal(await outbound.enqueue(a, BOUND), 'queued');
      assert.equal(await outbound.enqueue({ ...a, payload: 'changed' }, BOUND), 'queued');
      assert.equal(await outbound.count(instance), 1);
      assert.deepEqual(await outbound.get(instance, a.id), queued(a));
      assert.deepEqual(await outbound.claim({ now: T + 99, limit: 10, leaseMs: LEASE }), []);
      assert.deepEqual(await outbound.claim({ now: T + 100, limit: 10, leaseMs: LEASE }), [queued(a, { leasedUntil: T + 100 + LEASE })]);
      // Leased: nobody else gets it until the lease expires.
      assert.deepEqual(await outbound.claim({ now: T + 200, limit: 10, leaseMs: LEASE }), []);
      assert.deepEqual(ids(await outbound.claim({ now: T + 100 + LEASE, limit: 10, leaseMs: LEASE })), [a.id]);
    }));

    it('keeps order per lane; lanes are independent; soonest due first, then enqueue order', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const a1 = send(instance, 'a', T);
      const a2 = send(instance, 'a', T);
      const b1 = send(instance, 'b', T - 10);
      const a0 = send(instance, 'a', T - 5); // due earlier than a1: goes before it in lane a
      for (const item of [a1, a2, b1, a0]) await outbound.enqueue(item, BOUND);
      assert.deepEqual(ids(await outbound.claim({ now: T, limit: 10, leaseMs: LEASE })), [b1.id, a0.id]);
      await outbound.complete(instance, a0.id);
      await outbound.complete(instance, b1.id);
      assert.deepEqual(ids(await outbound.claim({ now: T, limit: 10, leaseMs: LEASE })), [a1.id]);
      await outbound.complete(instance, a1.id);
      assert.deepEqual(ids(await outbound.claim({ now: T, limit: 10, leaseMs: LEASE })), [a2.id]);
      await outbound.complete(instance, a2.id);
      assert.equal(await outbound.count(instance), 0);
      assert.equal(await outbound.nextDueAt(), null);
    }));

    it('claim respects limit', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      for (let i = 0; i < 5; i++) await outbound.enqueue(send(instance, `lane-${i}`, T + i), BOUND);
      assert.equal((await outbound.claim({ now: T + 10, limit: 3, leaseMs: LEASE })).length, 3);
      assert.equal((await outbound.claim({ now: T + 10, limit: 3, leaseMs: LEASE })).length, 2);
    }));

    it('release defers a head in place (its lane waits) and counts failures', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const a1 = send(instance, 'a', T);
      const a2 = send(instance, 'a', T);
      await outbound.enqueue(a1, BOUND);
      await outbound.enqueue(a2, BOUND);
      await outbound.claim({ now: T, limit: 10, leaseMs: LEASE });
      await outbound.release(instance, a1.id, { dueAt: T + 1_000 });
      assert.deepEqual(await outbound.claim({ now: T + 999, limit: 10, leaseMs: LEASE }), []);
      // Never later than the deferred head; a back end may answer the waiting entry's time behind it.
      const next = await outbound.nextDueAt();
      assert.ok(next !== null && next <= T + 1_000, `nextDueAt ${next}`);
      await outbound.claim({ now: T + 1_000, limit: 10, leaseMs: LEASE });
      await outbound.release(instance, a1.id, { dueAt: T + 2_000, failed: { error: 'rate limited' } });
      assert.deepEqual(await outbound.get(instance, a1.id), queued(a1, { dueAt: T + 2_000, attempts: 1, lastError: 'rate limited' }));
      await outbound.release(instance, 'unknown', { dueAt: T });
    }));

    it('nextDueAt answers no later than the first claimable time, a lease at its expiry', () => withStorage(harness, async ({ outbound }) => {
      assert.equal(await outbound.nextDueAt(), null);
      const instance = uniqueId('ins');
      const a = send(instance, 'a', T + 500);
      await outbound.enqueue(a, BOUND);
      assert.equal(await outbound.nextDueAt(), T + 500);
      await outbound.claim({ now: T + 500, limit: 1, leaseMs: LEASE });
      assert.equal(await outbound.nextDueAt(), T + 500 + LEASE);
    }));

    it('cancel removes a waiting entry, refuses a leased one and answers unknown ids', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const a = send(instance, 'a', T);
      const b = send(instance, 'b', T + 10_000);
      await outbound.enqueue(a, BOUND);
      await outbound.enqueue(b, BOUND);
      await outbound.claim({ now: T, limit: 10, leaseMs: LEASE });
      assert.equal(await outbound.cancel(instance, a.id, T + 1), 'sending');
      assert.equal(await outbound.cancel(instance, b.id, T + 1), 'cancelled');
      assert.equal(await outbound.cancel(instance, b.id, T + 1), 'unknown');
      assert.equal(await outbound.get(instance, b.id), null);
      assert.deepEqual(await outbound.claim({ now: T + 20_000, limit: 10, leaseMs: LEASE }), []);
      // An expired lease no longer holds the entry.
      assert.equal(await outbound.cancel(instance, a.id, T + LEASE), 'cancelled');
      assert.equal(await outbound.count(instance), 0);
    }));

    it('a paused instance is not claimed and does not wake workers; resume brings it back', () => withStorage(harness, async ({ outbound }) => {
      const paused = uniqueId('ins');
      const other = uniqueId('ins');
      const p = send(paused, 'a', T);
      const o = send(other, 'a', T + 5);
      await outbound.enqueue(p, BOUND);
      await outbound.setPaused(paused, true);
      await outbound.enqueue(o, BOUND);
      assert.equal(await outbound.isPaused(paused), true);
      assert.equal(await outbound.isPaused(other), false);
      assert.equal(await outbound.nextDueAt(), T + 5);
      assert.deepEqual(ids(await outbound.claim({ now: T + 10, limit: 10, leaseMs: LEASE })), [o.id]);
      await outbound.setPaused(paused, false);
      assert.deepEqual(ids(await outbound.claim({ now: T + 10, limit: 10, leaseMs: LEASE })), [p.id]);
    }));

    it('enqueue answers paused for a send left waiting in a paused instance (duplicates too), queued once it is resumed', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const lease = { now: T, leaseMs: LEASE };
      const first = send(instance, 'a', T);
      assert.equal(await outbound.enqueue(first, BOUND), 'queued');
      await outbound.setPaused(instance, true);
      const [due, later] = [send(instance, 'b', T), send(instance, 'c', T + 60_000)];
      assert.equal(await outbound.enqueue(due, BOUND, lease), 'paused');
      assert.equal(await outbound.enqueue(later, BOUND), 'paused');
      assert.equal(await outbound.enqueue(first, BOUND, lease), 'paused');
      assert.equal(await outbound.enqueue(send(instance, 'd', T), 3), 'full');
      assert.deepEqual(await outbound.get(instance, due.id), queued(due));
      assert.equal(await outbound.count(instance), 3);
      // Another instance is not paused by it.
      assert.equal(await outbound.enqueue(send(uniqueId('ins'), 'a', T + 1), BOUND, lease), 'queued');
      await outbound.setPaused(instance, false);
      assert.equal(await outbound.enqueue(later, BOUND), 'queued');
      assert.equal(await outbound.enqueue(send(instance, 'e', T), BOUND, lease), 'leased');
    }));

    it('enqueue refuses past the bound and stores nothing', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const other = uniqueId('ins');
      assert.equal(await outbound.enqueue(send(instance, 'a', T), 2), 'queued');
      assert.equal(await outbound.enqueue(send(instance, 'b', T), 2), 'queued');
      const third = send(instance, 'c', T);
      assert.equal(await outbound.enqueue(third, 2, { now: T, leaseMs: LEASE }), 'full');
      assert.equal(await outbound.get(instance, third.id), null);
      assert.equal(await outbound.count(instance), 2);
      assert.equal(await outbound.enqueue(send(other, 'a', T), 2), 'queued');
    }));

    it('enqueue with a lease leases a due lane head of an unpaused instance to the caller, in the same step', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const head = send(instance, 'a', T);
      assert.equal(await outbound.enqueue(head, BOUND, { now: T, leaseMs: LEASE }), 'leased');
      assert.deepEqual(await outbound.get(instance, head.id), queued(head, { leasedUntil: T + LEASE }));
      assert.deepEqual(await outbound.claim({ now: T, limit: 10, leaseMs: LEASE }), []);
      // Behind the leased head of its lane: queued.
      const behind = send(instance, 'a', T);
      assert.equal(await outbound.enqueue(behind, BOUND, { now: T, leaseMs: LEASE }), 'queued');
      // Not due yet: queued.
      assert.equal(await outbound.enqueue(send(instance, 'b', T + 1), BOUND, { now: T, leaseMs: LEASE }), 'queued');
      // Due before a later-scheduled send of its lane: it heads the lane.
      const later = send(instance, 'c', T + 60_000);
      await outbound.enqueue(later, BOUND);
      assert.equal(await outbound.enqueue(send(instance, 'c', T), BOUND, { now: T, leaseMs: LEASE }), 'leased');
      // Paused instance: waiting, and said so.
      const paused = uniqueId('ins');
      await outbound.setPaused(paused, true);
      assert.equal(await outbound.enqueue(send(paused, 'a', T), BOUND, { now: T, leaseMs: LEASE }), 'paused');
      // A crashed caller's lease expires and a worker takes the send.
      await outbound.complete(instance, behind.id);
      assert.deepEqual(ids(await outbound.claim({ now: T + LEASE, limit: 10, leaseMs: LEASE })).includes(head.id), true);
    }));

    it('a leased send is seen by every method until it is completed, and completing it leaves nothing', () => withStorage(harness, async (storage) => {
      const { outbound } = storage;
      const instance = uniqueId('ins');
      const head = send(instance, 'a', T);
      assert.equal(await outbound.enqueue(head, BOUND, { now: T, leaseMs: LEASE }), 'leased');
      // The same id again is stored once, and not leased twice.
      assert.equal(await outbound.enqueue(head, BOUND, { now: T, leaseMs: LEASE }), 'queued');
      assert.equal(await outbound.count(instance), 1);
      assert.deepEqual(await outbound.list(instance, { limit: 10, offset: 0 }), { items: [queued(head, { leasedUntil: T + LEASE })], total: 1 });
      assert.equal(await outbound.cancel(instance, head.id, T + 1), 'sending');
      assert.equal(await outbound.nextDueAt(), T + LEASE);
      await outbound.complete(instance, head.id);
      await storage.flush();
      assert.equal(await outbound.count(instance), 0);
      assert.equal(await outbound.get(instance, head.id), null);
      assert.equal(await outbound.nextDueAt(), null);
      // Its lane is free: the next send to it heads it.
      assert.equal(await outbound.enqueue(send(instance, 'a', T), BOUND, { now: T, leaseMs: LEASE }), 'leased');
      // A full queue counts leased sends too.
      assert.equal(await outbound.enqueue(send(instance, 'b', T), 1, { now: T, leaseMs: LEASE }), 'full');
    }));

    it('sends enqueued in one burst see each other: lanes, pause, the bound and a queue cleared meanwhile', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const lease = { now: T, leaseMs: LEASE };
      const [a1, b1, a2] = [send(instance, 'a', T), send(instance, 'b', T), send(instance, 'a', T)];
      // Started together: a back end that batches writes sees them in one batch.
      assert.deepEqual(await Promise.all([a1, b1, a2].map((item) => outbound.enqueue(item, 3, lease))), ['leased', 'leased', 'queued']);
      const [c, d] = [send(instance, 'c', T), send(instance, 'd', T)];
      assert.deepEqual(await Promise.all([
        outbound.enqueue(c, 3, lease),
        outbound.setPaused(instance, true).then(() => outbound.enqueue(d, 10, lease)),
      ]), ['full', 'paused']);
      await outbound.setPaused(instance, false);
      await Promise.all([outbound.complete(instance, a1.id), outbound.complete(instance, b1.id)]);
      // a2 now heads lane a; d waited for the pause; c was never stored.
      assert.deepEqual(ids(await outbound.claim({ now: T, limit: 10, leaseMs: LEASE })).sort(), [a2.id, d.id].sort());
      assert.equal(await outbound.get(instance, c.id), null);
      await outbound.clear(instance);
      assert.deepEqual(await Promise.all([outbound.enqueue(send(instance, 'a', T), 1, lease), outbound.enqueue(send(instance, 'b', T), 1, lease)]), ['leased', 'full']);
      assert.equal(await outbound.count(instance), 1);
    }));

    it('list pages by due time then enqueue order, with the total', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const late = send(instance, 'a', T + 300);
      const early = send(instance, 'b', T + 100);
      const mid1 = send(instance, 'c', T + 200);
      const mid2 = send(instance, 'd', T + 200);
      for (const item of [late, early, mid1, mid2]) await outbound.enqueue(item, BOUND);
      await outbound.enqueue(send(uniqueId('ins'), 'a', T), BOUND);
      assert.deepEqual(await outbound.list(instance, { limit: 2, offset: 0 }), { items: [queued(early), queued(mid1)], total: 4 });
      assert.deepEqual(ids((await outbound.list(instance, { limit: 10, offset: 2 })).items), [mid2.id, late.id]);
    }));

    it('clear deletes every entry and the paused flag of one instance only', () => withStorage(harness, async ({ outbound }) => {
      const instance = uniqueId('ins');
      const other = uniqueId('ins');
      await outbound.enqueue(send(instance, 'a', T), BOUND);
      await outbound.enqueue(send(instance, 'b', T), BOUND);
      const kept = send(other, 'a', T);
      await outbound.enqueue(kept, BOUND);
      await outbound.setPaused(instance, true);
      await outbound.clear(instance);
      assert.equal(await outbound.count(instance), 0);
      assert.equal(await outbound.isPaused(instance), false);
      assert.deepEqual(ids(await outbound.claim({ now: T, limit: 10, leaseMs: LEASE })), [kept.id]);
    }));

    if (harness.reopen) {
      const reopen = harness.reopen.bind(harness);
      it('entries, leases and the paused flag survive close and reopen', async () => {
        await withStorage(harness, async (storage) => {
          const instance = uniqueId('ins');
          const leased = send(instance, 'a', T);
          const waiting = send(instance, 'b', T + 60_000);
          await storage.outbound.enqueue(leased, BOUND);
          await storage.outbound.enqueue(waiting, BOUND);
          await storage.outbound.claim({ now: T, limit: 10, leaseMs: LEASE });
          await storage.outbound.setPaused('paused-' + instance, true);
          const again = await reopenStorage({ reopen }, storage);
          try {
            assert.deepEqual(await again.outbound.get(instance, waiting.id), queued(waiting));
            assert.equal(await again.outbound.isPaused('paused-' + instance), true);
            // A crashed worker's lease expires and the entry is claimed again.
            assert.deepEqual(await again.outbound.claim({ now: T + 1, limit: 10, leaseMs: LEASE }), []);
            assert.deepEqual(ids(await again.outbound.claim({ now: T + LEASE, limit: 10, leaseMs: LEASE })), [leased.id]);
          } finally {
            await again.close();
          }
        });
      });

      it('a send enqueued leased survives close and reopen until completed, and its lane waits for it', async () => {
        await withStorage(harness, async (storage) => {
          const instance = uniqueId('ins');
          const leased = send(instance, 'a', T);
          const done = send(instance, 'b', T);
          assert.equal(await storage.outbound.enqueue(leased, BOUND, { now: T, leaseMs: LEASE }), 'leased');
          assert.equal(await storage.outbound.enqueue(done, BOUND, { now: T, leaseMs: LEASE }), 'leased');
          await storage.outbound.complete(instance, done.id);
          await storage.flush();
          const again = await reopenStorage({ reopen }, storage);
          try {
            assert.deepEqual(await again.outbound.get(instance, leased.id), queued(leased, { leasedUntil: T + LEASE }));
            assert.equal(await again.outbound.get(instance, done.id), null);
            assert.equal(await again.outbound.count(instance), 1);
            const behind = send(instance, 'a', T);
            assert.equal(await again.outbound.enqueue(behind, BOUND, { now: T, leaseMs: LEASE }), 'queued');
            // The process that leased it is gone: a worker takes it once the lease expired, then the one behind it.
            assert.deepEqual(await again.outbound.claim({ now: T + 1, limit: 10, leaseMs: LEASE }), []);
            assert.deepEqual(ids(await again.outbound.claim({ now: T + LEASE, limit: 10, leaseMs: LEASE })), [leased.id]);
            await again.outbound.complete(instance, leased.id);
            assert.deepEqual(ids(await again.outbound.claim({ now: T + LEASE, limit: 10, leaseMs: LEASE })), [behind.id]);
          } finally {
            await again.close();
          }
        });
      });
    }
  });
}
