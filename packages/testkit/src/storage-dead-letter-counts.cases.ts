import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import type { DeliveryQueue } from '@parley/core';
import { newDelivery, uniqueId } from './storage-fixtures.js';
import { withStorage, type OutboxHarness } from './storage-harness.js';

const T = 1_000_000;
const URLS = Array.from({ length: 6 }, (_, i) => `http://127.0.0.1:${9300 + i}/hook`);

/** The total a dead-letter page answers, and the ids of every page of `limit`, checked against each other. */
async function deadIds(queue: DeliveryQueue, instance: string, limit = 2): Promise<{ total: number; ids: string[] }> {
  const ids: string[] = [];
  let total = -1;
  for (let offset = 0; total < 0 || offset < total + limit; offset += limit) {
    const page = await queue.deadLetters(instance, { limit, offset });
    if (total >= 0) assert.equal(page.total, total, 'every page answers the same total');
    total = page.total;
    ids.push(...page.items.map((letter) => letter.id));
  }
  assert.equal(ids.length, total, 'the pages hold exactly total letters');
  return { total, ids };
}

/**
 * DeliveryQueue dead-letter totals (issue 26): kept with the writes, so they stay exact through every
 * way a delivery dies, comes back or goes: a failure for good alone or in a `complete` batch,
 * redelivery by id and of all, a purge by age, an instance's clear, and concurrent failures.
 */
export function describeDeadLetterCountCases(harness: OutboxHarness): void {
  describe('dead-letter totals', () => {
    it('stay exact through deaths, redeliveries, purges and clears, per instance', () => withStorage(harness, async ({ deliveries }, clock) => {
      const instance = uniqueId('ins');
      const other = uniqueId('ins');
      const items = URLS.map((url) => newDelivery(instance, url, T));
      const foreign = newDelivery(other, URLS[0]!, T);
      await deliveries.enqueue([...items, foreign]);
      // Concurrent failures, one of them in a batch outcome.
      await Promise.all([
        ...items.slice(0, 4).map((item) => deliveries.fail(item.id, { nextAttemptAt: null, error: 'gone' })),
        deliveries.complete([{ id: items[4]!.id, outcome: 'failed', failure: { nextAttemptAt: null, error: 'gone' } }]),
        deliveries.fail(foreign.id, { nextAttemptAt: null, error: 'gone' }),
      ]);
      assert.deepEqual(new Set((await deadIds(deliveries, instance)).ids), new Set(items.slice(0, 5).map((item) => item.id)));
      assert.equal((await deadIds(deliveries, other)).total, 1);
      assert.equal(await deliveries.redeliver(instance, [items[1]!.id, items[5]!.id, 'unknown']), 1, 'a live delivery is no dead letter');
      assert.equal((await deadIds(deliveries, instance)).total, 4);
      await deliveries.fail(items[1]!.id, { nextAttemptAt: null, error: 'again' });
      assert.equal((await deadIds(deliveries, instance, 3)).total, 5);
      // The later death is younger than the cut: the purge takes the other four.
      clock.advance(10);
      await deliveries.fail(items[5]!.id, { nextAttemptAt: null, error: 'late' });
      assert.equal(await deliveries.purgeDeadLetters(clock.now() - 5), 6);
      assert.deepEqual((await deadIds(deliveries, instance)).ids, [items[5]!.id]);
      assert.equal(await deliveries.redeliver(instance), 1);
      assert.deepEqual(await deadIds(deliveries, instance), { total: 0, ids: [] });
      await deliveries.fail(items[5]!.id, { nextAttemptAt: null, error: 'last' });
      await deliveries.clear(instance);
      assert.deepEqual(await deadIds(deliveries, instance), { total: 0, ids: [] });
    }));
  });
}
