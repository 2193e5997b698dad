import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import type { DeadLetter, Delivery, DeliveryQueue, NewDelivery } from '@parley/core';
import { newDelivery, queuedDelivery as queued, uniqueId } from './storage-fixtures.js';
import type { FakeClock } from './fake-clock.js';
import { withStorage, type OutboxHarness } from './storage-harness.js';

/** Fake times: the queue takes `now` from its caller, so no test sleeps. */
const T = 1_000_000;
const LEASE = 30_000;
const URL_1 = 'http://127.0.0.1:9001/hook';
const URL_2 = 'http://127.0.0.1:9002/hook';


/** Asserts `letter` equals `expected` plus `deadAt`: the time of the storage's clock when it died. */
function assertDead(letter: DeadLetter | undefined, expected: Delivery, deadAt: number): void {
  assert.ok(letter, `dead letter ${expected.id} missing`);
  assert.deepEqual(letter, { ...expected, deadAt });
}

/** Fails a delivery for good at the clock's current time, and answers that time. */
async function failDead(queue: DeliveryQueue, clock: FakeClock, id: string, error: string, status?: number): Promise<number> {
  const at = clock.now();
  await queue.fail(id, { nextAttemptAt: null, error, ...(status === undefined ? {} : { status }) });
  return at;
}

/** DeliveryQueue: durable lanes, leases, retries, dead letters and exact statistics. */
export function describeDeliveryCases(harness: OutboxHarness): void {
  describe('deliveries', () => {
    it('enqueue stores deliveries due at createdAt with no attempts; duplicate ids are ignored', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const first = newDelivery(instance, URL_1, T);
      await deliveries.enqueue([first]);
      await deliveries.enqueue([{ ...first, body: '{"changed":true}', createdAt: T - 5 }, { ...first, url: URL_2 }]);
      await deliveries.enqueue([]);
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 0, totalFailed: 0, totalPending: 1, avgResponseTime: 0 });
      assert.deepEqual(await deliveries.claim({ now: T - 1, limit: 10, leaseMs: LEASE }), []);
      assert.deepEqual(await deliveries.claim({ now: T, limit: 10, leaseMs: LEASE }), [queued(first)]);
    }));

    it('claim answers only the due head of each lane, oldest due first, up to limit', () => withStorage(harness, async ({ deliveries }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      const a1Head = newDelivery(a, URL_1, T + 100);
      const a1Second = newDelivery(a, URL_1, T + 50);
      const a2Head = newDelivery(a, URL_2, T + 200);
      const b1Head = newDelivery(b, URL_1, T + 100);
      await deliveries.enqueue([a1Head, a1Second]);
      await deliveries.enqueue([a2Head, b1Head]);
      // a1Second is due first but waits behind its lane head.
      assert.deepEqual(await deliveries.claim({ now: T + 99, limit: 10, leaseMs: LEASE }), []);
      assert.deepEqual(await deliveries.claim({ now: T + 100, limit: 1, leaseMs: LEASE }), [queued(a1Head)]);
      assert.deepEqual(await deliveries.claim({ now: T + 300, limit: 10, leaseMs: LEASE }), [queued(b1Head), queued(a2Head)]);
      assert.deepEqual(await deliveries.claim({ now: T + 300, limit: 10, leaseMs: LEASE }), []);
    }));

    it('a leased delivery is claimed again only once its lease expires', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const head = newDelivery(instance, URL_1, T);
      const next = newDelivery(instance, URL_1, T);
      await deliveries.enqueue([head, next]);
      assert.deepEqual(await deliveries.claim({ now: T, limit: 10, leaseMs: 1_000 }), [queued(head)]);
      assert.deepEqual(await deliveries.claim({ now: T + 999, limit: 10, leaseMs: 1_000 }), []);
      assert.deepEqual(await deliveries.claim({ now: T + 1_000, limit: 10, leaseMs: 1_000 }), [queued(head)]);
      assert.deepEqual(await deliveries.claim({ now: T + 1_500, limit: 10, leaseMs: 1_000 }), []);
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 0, totalFailed: 0, totalPending: 2, avgResponseTime: 0 });
    }));

    it('two concurrent claimers never get the same delivery', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const heads = Array.from({ length: 8 }, (_, i) => newDelivery(instance, `http://127.0.0.1:${9100 + i}/hook`, T + i));
      await deliveries.enqueue(heads);
      await deliveries.enqueue(heads.map((head) => newDelivery(instance, head.url, T)));
      const [first, second] = await Promise.all([
        deliveries.claim({ now: T + 10, limit: 5, leaseMs: LEASE }),
        deliveries.claim({ now: T + 10, limit: 5, leaseMs: LEASE }),
      ]);
      const ids = [...first, ...second].map((delivery) => delivery.id);
      assert.equal(new Set(ids).size, ids.length, 'a delivery was claimed twice');
      assert.deepEqual(ids.sort(), heads.map((head) => head.id).sort());
    }));

    it('ack removes the delivery, counts it sent and unblocks its lane', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const head = newDelivery(instance, URL_1, T);
      const next = newDelivery(instance, URL_1, T + 1);
      await deliveries.enqueue([head, next]);
      await deliveries.claim({ now: T, limit: 10, leaseMs: LEASE });
      await deliveries.ack(head.id, { status: 200, responseTimeMs: 40 });
      await deliveries.ack(head.id, { status: 200, responseTimeMs: 9_999 });
      await deliveries.ack(uniqueId('dlv'), { status: 200, responseTimeMs: 9_999 });
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 1, totalFailed: 0, totalPending: 1, avgResponseTime: 40 });
      assert.deepEqual(await deliveries.claim({ now: T + 1, limit: 10, leaseMs: LEASE }), [queued(next)]);
    }));

    it('fail with nextAttemptAt reschedules: attempts, lastError, lastStatus; the lane waits for it', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const head = newDelivery(instance, URL_1, T);
      const next = newDelivery(instance, URL_1, T);
      await deliveries.enqueue([head, next]);
      await deliveries.claim({ now: T, limit: 10, leaseMs: LEASE });
      await deliveries.fail(head.id, { nextAttemptAt: T + 5_000, error: 'HTTP 500', status: 500, responseTimeMs: 30 });
      assert.deepEqual(await deliveries.claim({ now: T + 4_999, limit: 10, leaseMs: LEASE }), []);
      const afterFirst = queued(head, { attempts: 1, nextAttemptAt: T + 5_000, lastError: 'HTTP 500', lastStatus: 500 });
      assert.deepEqual(await deliveries.claim({ now: T + 5_000, limit: 10, leaseMs: LEASE }), [afterFirst]);
      await deliveries.fail(head.id, { nextAttemptAt: T + 9_000, error: 'connect ECONNREFUSED 127.0.0.1:9001' });
      assert.deepEqual(await deliveries.claim({ now: T + 9_000, limit: 10, leaseMs: LEASE }), [
        queued(head, { attempts: 2, nextAttemptAt: T + 9_000, lastError: 'connect ECONNREFUSED 127.0.0.1:9001' }),
      ]);
      await deliveries.fail(uniqueId('dlv'), { nextAttemptAt: T, error: 'unknown ids are ignored' });
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 0, totalFailed: 2, totalPending: 2, avgResponseTime: 30 });
    }));

    it('fail with null dead-letters the delivery and unblocks its lane', () => withStorage(harness, async ({ deliveries }, clock) => {
      const instance = uniqueId('ins');
      const head = newDelivery(instance, URL_1, T);
      const next = newDelivery(instance, URL_1, T + 1);
      await deliveries.enqueue([head, next]);
      await deliveries.claim({ now: T, limit: 10, leaseMs: LEASE });
      await deliveries.fail(head.id, { nextAttemptAt: T + 10, error: 'HTTP 503', status: 503, responseTimeMs: 12 });
      await deliveries.claim({ now: T + 10, limit: 10, leaseMs: LEASE });
      clock.advance(1_000);
      const deadAt = await failDead(deliveries, clock, head.id, 'HTTP 410', 410);
      const letters = await deliveries.deadLetters(instance, { limit: 10, offset: 0 });
      assert.equal(letters.total, 1);
      assert.equal(letters.items.length, 1);
      assertDead(letters.items[0], queued(head, { attempts: 2, nextAttemptAt: T + 10, lastError: 'HTTP 410', lastStatus: 410 }), deadAt);
      assert.deepEqual(await deliveries.claim({ now: T + 10, limit: 10, leaseMs: LEASE }), [queued(next)]);
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 0, totalFailed: 2, totalPending: 1, avgResponseTime: 12 });
      assert.deepEqual(await deliveries.deadLetters(uniqueId('ins'), { limit: 10, offset: 0 }), { items: [], total: 0 });
    }));

    it('deadLetters pages oldest dead first, then in enqueue order', () => withStorage(harness, async ({ deliveries }, clock) => {
      const instance = uniqueId('ins');
      const items = Array.from({ length: 5 }, (_, i) => newDelivery(instance, `http://127.0.0.1:${9200 + i}/hook`, T));
      await deliveries.enqueue(items);
      const deaths = new Map<string, number>();
      // Two die in one millisecond, two a millisecond later, each pair out of enqueue order.
      for (const item of [items[3]!, items[0]!]) deaths.set(item.id, await failDead(deliveries, clock, item.id, 'gone'));
      clock.advance(1);
      for (const item of [items[4]!, items[1]!]) deaths.set(item.id, await failDead(deliveries, clock, item.id, 'gone'));
      const page1 = await deliveries.deadLetters(instance, { limit: 3, offset: 0 });
      const page2 = await deliveries.deadLetters(instance, { limit: 3, offset: 3 });
      assert.deepEqual([page1.total, page1.items.length, page2.total, page2.items.length], [4, 3, 4, 1]);
      const letters = [...page1.items, ...page2.items];
      for (const letter of letters) {
        const item = items.find((candidate) => candidate.id === letter.id)!;
        assertDead(letter, queued(item, { attempts: 1, lastError: 'gone' }), deaths.get(item.id)!);
      }
      // Letters that died in the same millisecond list in enqueue order.
      const rank = (letter: DeadLetter) => [letter.deadAt, items.findIndex((item) => item.id === letter.id)] as const;
      const expected = [...letters].sort((x, y) => rank(x)[0] - rank(y)[0] || rank(x)[1] - rank(y)[1]);
      assert.deepEqual(letters.map((letter) => letter.id), expected.map((letter) => letter.id));
      assert.deepEqual(letters.map((letter) => letter.id), [0, 3, 1, 4].map((i) => items[i]!.id));
      assert.deepEqual(new Set(letters.map((letter) => letter.id)), new Set([3, 0, 4, 1].map((i) => items[i]!.id)));
      assert.deepEqual(await deliveries.deadLetters(instance, { limit: 3, offset: 4 }), { items: [], total: 4 });
    }));

    it('redeliver moves dead letters back due now with a fresh schedule, all or by id, and counts them', () => withStorage(harness, async ({ deliveries }, clock) => {
      const instance = uniqueId('ins');
      const other = uniqueId('ins');
      const [d1, d2, d3] = [URL_1, URL_2, 'http://127.0.0.1:9003/hook'].map((url) => newDelivery(instance, url, T));
      const foreign = newDelivery(other, URL_1, T);
      await deliveries.enqueue([d1!, d2!, d3!, foreign]);
      for (const item of [d1!, d2!, d3!, foreign]) await failDead(deliveries, clock, item.id, 'HTTP 404', 404);
      const firstAt = clock.advance(500);
      assert.equal(await deliveries.redeliver(instance, [d2!.id, foreign.id, uniqueId('dlv')]), 1);
      assert.deepEqual((await deliveries.deadLetters(instance, { limit: 10, offset: 0 })).items.map((letter) => letter.id), [d1!.id, d3!.id]);
      const after = clock.advance(500);
      assert.equal(await deliveries.redeliver(instance), 2);
      assert.equal(await deliveries.redeliver(instance), 0);
      assert.deepEqual(await deliveries.deadLetters(instance, { limit: 10, offset: 0 }), { items: [], total: 0 });
      assert.equal((await deliveries.deadLetters(other, { limit: 10, offset: 0 })).total, 1);
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 0, totalFailed: 3, totalPending: 3, avgResponseTime: 0 });
      const claimed = await deliveries.claim({ now: after, limit: 10, leaseMs: LEASE });
      assert.deepEqual(claimed.map((delivery) => delivery.id).sort(), [d1!.id, d2!.id, d3!.id].sort());
      for (const delivery of claimed) {
        const original = [d1!, d2!, d3!].find((item) => item.id === delivery.id)!;
        // Due at the clock's time of its redelivery.
        const due = delivery.id === d2!.id ? firstAt : after;
        assert.deepEqual(delivery, queued(original, { nextAttemptAt: due, lastError: 'HTTP 404', lastStatus: 404 }));
      }
    }));

    it('discardDeadLetters deletes the instance\'s dead letters it names, and nothing else', () => withStorage(harness, async ({ deliveries }, clock) => {
      const instance = uniqueId('ins');
      const [d1, d2, live] = [newDelivery(instance, URL_1, T), newDelivery(instance, URL_2, T), newDelivery(instance, 'http://127.0.0.1:9003/hook', T)];
      const foreign = newDelivery(uniqueId('ins'), URL_1, T);
      await deliveries.enqueue([d1!, d2!, live!, foreign]);
      for (const item of [d1!, d2!, foreign]) await failDead(deliveries, clock, item.id, 'HTTP 410', 410);
      assert.equal(await deliveries.discardDeadLetters(instance, [d1!.id, live!.id, foreign.id, uniqueId('dlv'), d1!.id]), 1);
      assert.equal(await deliveries.discardDeadLetters(instance, []), 0);
      assert.deepEqual((await deliveries.deadLetters(instance, { limit: 10, offset: 0 })).items.map((letter) => letter.id), [d2!.id]);
      assert.equal((await deliveries.deadLetters(foreign.instance, { limit: 10, offset: 0 })).total, 1);
      assert.deepEqual((await deliveries.claim({ now: clock.now(), limit: 10, leaseMs: LEASE })).map((delivery) => delivery.id), [live!.id], 'a queued delivery is no dead letter');
      assert.equal(await deliveries.redeliver(instance), 1, 'only the one left');
    }));

    it('purgeDeadLetters deletes dead letters older than the given time across instances', () => withStorage(harness, async ({ deliveries }, clock) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      const [da, db, live] = [newDelivery(a, URL_1, T), newDelivery(b, URL_1, T), newDelivery(a, URL_2, T)];
      await deliveries.enqueue([da!, db!, live!]);
      const start = clock.advance(1_000);
      await failDead(deliveries, clock, da!.id, 'gone');
      clock.advance(1);
      await failDead(deliveries, clock, db!.id, 'gone');
      assert.equal(await deliveries.purgeDeadLetters(start), 0);
      assert.equal(await deliveries.purgeDeadLetters(start + 1), 1);
      assert.equal(await deliveries.purgeDeadLetters(clock.now() + 1), 1);
      assert.equal(await deliveries.purgeDeadLetters(clock.now() + 1), 0);
      assert.deepEqual(await deliveries.deadLetters(a, { limit: 10, offset: 0 }), { items: [], total: 0 });
      assert.deepEqual(await deliveries.deadLetters(b, { limit: 10, offset: 0 }), { items: [], total: 0 });
      assert.deepEqual(await deliveries.claim({ now: T, limit: 10, leaseMs: LEASE }), [queued(live!)]);
    }));

    it('nextDueAt answers the earliest time a claim can answer something', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      assert.equal(await deliveries.nextDueAt(), null);
      const head1 = newDelivery(instance, URL_1, T + 500);
      const blocked = newDelivery(instance, URL_1, T + 10);
      const head2 = newDelivery(instance, URL_2, T + 300);
      await deliveries.enqueue([head1, blocked, head2]);
      assert.equal(await deliveries.nextDueAt(), T + 300);
      await deliveries.claim({ now: T + 300, limit: 1, leaseMs: 1_000 });
      assert.equal(await deliveries.nextDueAt(), T + 500);
      await deliveries.claim({ now: T + 600, limit: 1, leaseMs: 1_000 });
      assert.equal(await deliveries.nextDueAt(), T + 1_300, 'the earliest lease expiry');
      await deliveries.fail(head2.id, { nextAttemptAt: T + 2_000, error: 'HTTP 500', status: 500 });
      assert.equal(await deliveries.nextDueAt(), T + 1_600);
      await deliveries.ack(head1.id, { status: 200, responseTimeMs: 5 });
      assert.equal(await deliveries.nextDueAt(), T + 10);
      await deliveries.fail(blocked.id, { nextAttemptAt: null, error: 'gone' });
      assert.equal(await deliveries.nextDueAt(), T + 2_000);
      await deliveries.fail(head2.id, { nextAttemptAt: null, error: 'gone' });
      assert.equal(await deliveries.nextDueAt(), null);
    }));

    it('stats are exact: sent, each failed attempt, pending, rounded mean of every answered attempt', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const [d1, d2, d3, d4] = [URL_1, URL_2, 'http://127.0.0.1:9003/hook', 'http://127.0.0.1:9004/hook'].map((url) => newDelivery(instance, url, T));
      await deliveries.enqueue([d1!, d2!, d3!, d4!]);
      await deliveries.claim({ now: T, limit: 10, leaseMs: LEASE });
      await deliveries.ack(d1!.id, { status: 200, responseTimeMs: 100 });
      await deliveries.fail(d2!.id, { nextAttemptAt: T + 1, error: 'HTTP 500', status: 500, responseTimeMs: 201 });
      await deliveries.fail(d2!.id, { nextAttemptAt: T + 2, error: 'timeout' });
      await deliveries.fail(d3!.id, { nextAttemptAt: null, error: 'HTTP 400', status: 400, responseTimeMs: 50 });
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 1, totalFailed: 3, totalPending: 2, avgResponseTime: 117 });
      await deliveries.ack(d2!.id, { status: 204, responseTimeMs: 2 });
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 2, totalFailed: 3, totalPending: 1, avgResponseTime: 88 });
      await deliveries.ack(d4!.id, { status: 200, responseTimeMs: 3 });
      // (100 + 201 + 50 + 2 + 3) / 5 = 71.2
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 3, totalFailed: 3, totalPending: 0, avgResponseTime: 71 });
      assert.deepEqual(await deliveries.stats(uniqueId('ins')), { totalSent: 0, totalFailed: 0, totalPending: 0, avgResponseTime: 0 });
    }));

    it('avgResponseTime rounds half up and accepts fractional times', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const [d1, d2] = [newDelivery(instance, URL_1, T), newDelivery(instance, URL_2, T)];
      await deliveries.enqueue([d1!, d2!]);
      await deliveries.ack(d1!.id, { status: 200, responseTimeMs: 10.25 });
      await deliveries.ack(d2!.id, { status: 200, responseTimeMs: 10.75 });
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 2, totalFailed: 0, totalPending: 0, avgResponseTime: 11 });
    }));

    it('order within a lane follows enqueue order across many items and batches', () => withStorage(harness, async ({ deliveries }) => {
      const instance = uniqueId('ins');
      const lane1 = Array.from({ length: 60 }, (_, i) => newDelivery(instance, URL_1, T + 60 - i));
      const lane2 = Array.from({ length: 20 }, (_, i) => newDelivery(instance, URL_2, T + i));
      for (let i = 0; i < lane1.length; i += 15) await deliveries.enqueue([...lane1.slice(i, i + 15), ...lane2.slice(i / 3, i / 3 + 5)]);
      const seen: string[] = [];
      for (let round = 0; round < 100 && seen.length < 80; round++) {
        const claimed = await deliveries.claim({ now: T + 1_000, limit: 10, leaseMs: LEASE });
        assert.ok(claimed.length > 0 && claimed.length <= 2, `round ${round} claimed ${claimed.length}`);
        for (const delivery of claimed) {
          seen.push(delivery.id);
          await deliveries.ack(delivery.id, { status: 200, responseTimeMs: 1 });
        }
      }
      assert.deepEqual(seen.filter((id) => lane1.some((item) => item.id === id)), lane1.map((item) => item.id));
      assert.deepEqual(seen.filter((id) => lane2.some((item) => item.id === id)), lane2.map((item) => item.id));
      assert.deepEqual(await deliveries.stats(instance), { totalSent: 80, totalFailed: 0, totalPending: 0, avgResponseTime: 1 });
    }));

    it('clear deletes the queue, dead letters and counters of one instance only', () => withStorage(harness, async ({ deliveries }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      const [a1, a2, a3] = [URL_1, URL_2, 'http://127.0.0.1:9003/hook'].map((url) => newDelivery(a, url, T));
      const [b1, b2] = [newDelivery(b, URL_1, T), newDelivery(b, URL_2, T)];
      await deliveries.enqueue([a1!, a2!, a3!, b1!, b2!]);
      await deliveries.ack(a1!.id, { status: 200, responseTimeMs: 10 });
      await deliveries.ack(b1!.id, { status: 200, responseTimeMs: 20 });
      await deliveries.fail(a2!.id, { nextAttemptAt: null, error: 'gone' });
      await deliveries.clear(a);
      assert.deepEqual(await deliveries.stats(a), { totalSent: 0, totalFailed: 0, totalPending: 0, avgResponseTime: 0 });
      assert.deepEqual(await deliveries.deadLetters(a, { limit: 10, offset: 0 }), { items: [], total: 0 });
      assert.deepEqual(await deliveries.stats(b), { totalSent: 1, totalFailed: 0, totalPending: 1, avgResponseTime: 20 });
      assert.deepEqual(await deliveries.claim({ now: T, limit: 10, leaseMs: LEASE }), [queued(b2!)]);
      assert.equal(await deliveries.nextDueAt(), T + LEASE);
    }));
  });
}
