import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import type { IdempotencyClaim, IdempotentAnswer } from '@parley/core';
import { FakeClock } from './fake-clock.js';
import { uniqueId } from './storage-fixtures.js';
import { reopenStorage, withStorage, type OutboxHarness } from './storage-harness.js';

const DAY = 24 * 60 * 60 * 1000;
const LEASE = 60_000;

function claimAt(now: number, fingerprint = 'fp-1', owner = uniqueId('owner')): IdempotencyClaim {
  return { fingerprint, owner, now, expiresAt: now + LEASE };
}

/** An answer whose JSON has what a naive codec would change: an empty array and object, unicode, nesting. */
const ANSWER: IdempotentAnswer = { status: 200, body: { status: 200, data: { id: 'M1', list: [], empty: {}, text: 'olá ✓', n: 1.5, flag: false } } };

/**
 * IdempotencyStore: one holder per key, answers kept until they expire by the caller's clock, keys per
 * scope, leases that end, and (for durable back ends) keys that survive a reopen.
 */
export function describeIdempotencyCases(harness: OutboxHarness): void {
  describe('idempotency keys', () => {
    it('begin takes a free key; the next begin sees it in progress; complete keeps the answer until it expires', () => withStorage(harness, async ({ idempotency }, clock) => {
      const scope = uniqueId('inst');
      const first = claimAt(clock.now());
      assert.equal(await idempotency.begin(scope, 'k1', first), null);
      const held = await idempotency.begin(scope, 'k1', claimAt(clock.now(), 'fp-2'));
      assert.deepEqual(held, { state: 'in_progress', fingerprint: 'fp-1', owner: first.owner, expiresAt: first.expiresAt });
      assert.equal(await idempotency.complete(scope, 'k1', { owner: first.owner, answer: ANSWER, now: clock.now(), expiresAt: clock.now() + DAY }), true);
      const done = { state: 'done', fingerprint: 'fp-1', owner: first.owner, expiresAt: clock.now() + DAY, answer: ANSWER };
      assert.deepEqual(await idempotency.get(scope, 'k1', clock.now()), done);
      assert.deepEqual(await idempotency.begin(scope, 'k1', claimAt(clock.now())), done);
      clock.advance(DAY - 1);
      assert.deepEqual(await idempotency.get(scope, 'k1', clock.now()), done);
      clock.advance(1);
      assert.equal(await idempotency.get(scope, 'k1', clock.now()), null);
      // Expired: the key is free again.
      assert.equal(await idempotency.begin(scope, 'k1', claimAt(clock.now(), 'fp-3')), null);
      assert.equal((await idempotency.get(scope, 'k1', clock.now()))?.fingerprint, 'fp-3');
    }));

    it('keys are per scope', () => withStorage(harness, async ({ idempotency }, clock) => {
      const a = uniqueId('inst');
      const b = uniqueId('inst');
      assert.equal(await idempotency.begin(a, 'same', claimAt(clock.now())), null);
      assert.equal(await idempotency.begin(b, 'same', claimAt(clock.now())), null);
      assert.equal(await idempotency.get(uniqueId('inst'), 'same', clock.now()), null);
    }));

    it('of 20 concurrent begins for one key exactly one takes it', () => withStorage(harness, async ({ idempotency }, clock) => {
      const scope = uniqueId('inst');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => idempotency.begin(scope, 'race', claimAt(clock.now(), `fp-${i}`))));
      assert.equal(results.filter((r) => r === null).length, 1);
      const winner = results.indexOf(null);
      for (const r of results) if (r) assert.equal(r.fingerprint, `fp-${winner}`);
    }));

    it('an in-progress lease that ran out frees the key; only the holder completes or releases', () => withStorage(harness, async ({ idempotency }, clock) => {
      const scope = uniqueId('inst');
      const stale = claimAt(clock.now());
      assert.equal(await idempotency.begin(scope, 'k', stale), null);
      clock.advance(LEASE);
      const next = claimAt(clock.now(), 'fp-next');
      assert.equal(await idempotency.begin(scope, 'k', next), null);
      // The stale holder can neither complete nor release what it no longer holds.
      assert.equal(await idempotency.complete(scope, 'k', { owner: stale.owner, answer: ANSWER, now: clock.now(), expiresAt: clock.now() + DAY }), false);
      await idempotency.release(scope, 'k', stale.owner);
      assert.equal((await idempotency.get(scope, 'k', clock.now()))?.owner, next.owner);
      await idempotency.release(scope, 'k', next.owner);
      assert.equal(await idempotency.get(scope, 'k', clock.now()), null);
    }));

    it('release does not drop a completed answer, and complete happens once', () => withStorage(harness, async ({ idempotency }, clock) => {
      const scope = uniqueId('inst');
      const claim = claimAt(clock.now());
      await idempotency.begin(scope, 'k', claim);
      const done = { owner: claim.owner, answer: ANSWER, now: clock.now(), expiresAt: clock.now() + DAY };
      assert.equal(await idempotency.complete(scope, 'k', done), true);
      assert.equal(await idempotency.complete(scope, 'k', { ...done, answer: { status: 500, body: {} } }), false);
      await idempotency.release(scope, 'k', claim.owner);
      assert.deepEqual((await idempotency.get(scope, 'k', clock.now()))?.answer, ANSWER);
    }));

    it('keys of any visible characters, up to 255 of them', () => withStorage(harness, async ({ idempotency }, clock) => {
      const scope = uniqueId('inst');
      for (const key of ['a', 'x'.repeat(255), 'with:colons/and\\slashes*?[]', 'üñí']) {
        assert.equal(await idempotency.begin(scope, key, claimAt(clock.now())), null, key);
        assert.equal((await idempotency.get(scope, key, clock.now()))?.state, 'in_progress', key);
      }
    }));

    const { reopen } = harness;
    if (reopen) {
      it('answers survive close and reopen', async () => {
        const clock = new FakeClock();
        let storage = await harness.create(clock);
        await storage.init();
        try {
          const scope = uniqueId('inst');
          const claim = claimAt(clock.now());
          await storage.idempotency.begin(scope, 'k', claim);
          await storage.idempotency.complete(scope, 'k', { owner: claim.owner, answer: ANSWER, now: clock.now(), expiresAt: clock.now() + DAY });
          storage = await reopenStorage({ reopen }, storage);
          assert.deepEqual((await storage.idempotency.get(scope, 'k', clock.now()))?.answer, ANSWER);
        } finally {
          await storage.close();
        }
      });
    }
  });
}
