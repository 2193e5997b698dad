import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import { ConflictError, NotFoundError, UniqueClaimConflictError, type UniqueClaim } from '@parley/core';
import { filledInstanceRecord, uniqueId } from './storage-fixtures.js';
import { reopenStorage, withStorage, type RecordStoreHarness } from './storage-harness.js';
import { FakeClock } from './fake-clock.js';

/** A claim in a namespace no other test uses. */
function claim(value = uniqueId('v')): UniqueClaim {
  return { namespace: uniqueId('driver:number'), value };
}

/**
 * Unique claims of InstanceRepository: a value held by one instance at a time, created atomically with
 * the record, looked up by index, released on delete, durable across reopen.
 */
export function describeClaimCases(harness: RecordStoreHarness): void {
  describe('instance unique claims', () => {
    it('create stores the claims with the record and claimHolder answers the holder', () => withStorage(harness, async ({ instances }) => {
      const number = claim();
      const other = { namespace: uniqueId('driver:handle'), value: number.value };
      const record = filledInstanceRecord();
      await instances.create(record, [number, other]);
      assert.equal(await instances.claimHolder(number.namespace, number.value), record.id);
      assert.equal(await instances.claimHolder(other.namespace, other.value), record.id);
      // The same value in another namespace, and another value in the same one, are free.
      assert.equal(await instances.claimHolder(uniqueId('driver:number'), number.value), null);
      assert.equal(await instances.claimHolder(number.namespace, uniqueId('v')), null);
      assert.deepEqual(await instances.get(record.id), record);
    }));

    it('refuses a held claim with UniqueClaimConflictError naming it, leaving nothing of the refused record', () => withStorage(harness, async ({ instances }) => {
      const free = claim();
      const held = claim();
      const first = filledInstanceRecord();
      await instances.create(first, [held]);
      const second = filledInstanceRecord();
      const refusal = await instances.create(second, [free, held]).then(() => null, (err: unknown) => err);
      assert.ok(refusal instanceof UniqueClaimConflictError, String(refusal));
      assert.ok(refusal instanceof ConflictError);
      assert.equal(refusal.status, 409);
      assert.deepEqual(refusal.claim, held);
      assert.equal(await instances.get(second.id), null);
      assert.equal(await instances.findByKey(second.key), null);
      // The claim listed before the held one was not kept either.
      assert.equal(await instances.claimHolder(free.namespace, free.value), null);
      assert.equal(await instances.claimHolder(held.namespace, held.value), first.id);
      assert.deepEqual((await instances.list()).map((r) => r.id), [first.id]);
    }));

    it('a creation refused for its id or key keeps none of its claims', () => withStorage(harness, async ({ instances }) => {
      const first = filledInstanceRecord();
      await instances.create(first);
      const lost = claim();
      await assert.rejects(instances.create(filledInstanceRecord({ key: first.key }), [lost]), ConflictError);
      assert.equal(await instances.claimHolder(lost.namespace, lost.value), null);
    }));

    it('of 20 concurrent creations claiming one value, exactly one succeeds', () => withStorage(harness, async ({ instances }) => {
      const contested = claim();
      const records = Array.from({ length: 20 }, () => filledInstanceRecord());
      const outcomes = await Promise.allSettled(records.map((record) => instances.create(record, [contested])));
      const winners = records.filter((_, i) => outcomes[i]!.status === 'fulfilled');
      assert.equal(winners.length, 1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') assert.ok(outcome.reason instanceof UniqueClaimConflictError, String(outcome.reason));
      }
      assert.equal(await instances.claimHolder(contested.namespace, contested.value), winners[0]!.id);
      assert.deepEqual((await instances.list()).map((r) => r.id), [winners[0]!.id]);
    }));

    it('delete releases the claims of the instance only, and the value can be claimed again', () => withStorage(harness, async ({ instances }) => {
      const mine = claim();
      const theirs = claim();
      const a = filledInstanceRecord();
      const b = filledInstanceRecord();
      await instances.create(a, [mine]);
      await instances.create(b, [theirs]);
      assert.equal(await instances.delete(a.id), true);
      assert.equal(await instances.claimHolder(mine.namespace, mine.value), null);
      assert.equal(await instances.claimHolder(theirs.namespace, theirs.value), b.id);
      const c = filledInstanceRecord();
      await instances.create(c, [mine]);
      assert.equal(await instances.claimHolder(mine.namespace, mine.value), c.id);
    }));

    it('claim adds claims to an existing instance, all or none, keeping its own; delete releases them', () => withStorage(harness, async ({ instances }) => {
      const a = filledInstanceRecord();
      const b = filledInstanceRecord();
      const own = claim();
      const theirs = claim();
      await instances.create(a, [own]);
      await instances.create(b, [theirs]);
      const added = claim();
      await instances.claim(a.id, [own, added]);
      assert.equal(await instances.claimHolder(added.namespace, added.value), a.id);
      assert.equal(await instances.claimHolder(own.namespace, own.value), a.id);
      const fresh = claim();
      const refusal = await instances.claim(a.id, [fresh, theirs]).then(() => null, (err: unknown) => err);
      assert.ok(refusal instanceof UniqueClaimConflictError, String(refusal));
      assert.deepEqual(refusal.claim, theirs);
      assert.equal(await instances.claimHolder(fresh.namespace, fresh.value), null);
      assert.equal(await instances.claimHolder(theirs.namespace, theirs.value), b.id);
      await assert.rejects(instances.claim(uniqueId('ins'), [claim()]), NotFoundError);
      await instances.delete(a.id);
      assert.equal(await instances.claimHolder(added.namespace, added.value), null);
      assert.equal(await instances.claimHolder(own.namespace, own.value), null);
    }));

    if (harness.reopen) {
      const durable = { ...harness, reopen: harness.reopen };
      it('claims survive close and reopen, and still refuse a second holder', async () => {
        const held = claim();
        const record = filledInstanceRecord();
        let storage = await harness.create(new FakeClock());
        await storage.init();
        try {
          await storage.instances.create(record, [held]);
          storage = await reopenStorage(durable, storage);
          assert.equal(await storage.instances.claimHolder(held.namespace, held.value), record.id);
          await assert.rejects(storage.instances.create(filledInstanceRecord(), [held]), UniqueClaimConflictError);
          await storage.instances.delete(record.id);
          assert.equal(await storage.instances.claimHolder(held.namespace, held.value), null);
        } finally {
          await storage.close();
        }
      });
    }
  });
}
