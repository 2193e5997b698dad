import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import { ConflictError, NotFoundError } from '@parley/core';
import { INHERITED_NAMES, filledInstanceRecord, uniqueId } from './storage-fixtures.js';
import { withStorage, type RecordStoreHarness } from './storage-harness.js';

/** InstanceRepository: identity, secret-key lookup, ordering, merge and deletion. */
export function describeInstanceCases(harness: RecordStoreHarness): void {
  describe('instances', () => {
    it('creates, gets and finds by key a record that reads back whole', () => withStorage(harness, async ({ instances }) => {
      const record = filledInstanceRecord();
      await instances.create(record);
      assert.deepEqual(await instances.get(record.id), record);
      assert.deepEqual(await instances.findByKey(record.key), record);
      assert.equal(await instances.get(uniqueId('ins')), null);
      assert.equal(await instances.findByKey(uniqueId('key')), null);
    }));

    it('answers null for an id or key named like an inherited member (constructor, __proto__, …)', () => withStorage(harness, async ({ instances }) => {
      await instances.create(filledInstanceRecord());
      for (const name of INHERITED_NAMES) {
        assert.equal(await instances.get(name), null, name);
        assert.equal(await instances.findByKey(name), null, name);
      }
    }));

    it('stores copies: mutating the written or the read object changes nothing', () => withStorage(harness, async ({ instances }) => {
      const record = filledInstanceRecord();
      const expected = structuredClone(record);
      await instances.create(record);
      record.name = 'mutated';
      record.flags.blocked = true;
      const read = await instances.get(record.id);
      assert.ok(read);
      read.webhook.webhookMessage = 'mutated';
      assert.deepEqual(await instances.get(record.id), expected);
    }));

    it('refuses a duplicate id or key with ConflictError', () => withStorage(harness, async ({ instances }) => {
      const first = filledInstanceRecord();
      await instances.create(first);
      await assert.rejects(instances.create(filledInstanceRecord({ id: first.id })), ConflictError);
      await assert.rejects(instances.create(filledInstanceRecord({ key: first.key })), ConflictError);
      assert.deepEqual(await instances.list(), [first]);
    }));

    it('lists oldest first by createdAt, ties in creation order', () => withStorage(harness, async ({ instances }) => {
      const late = filledInstanceRecord({ createdAt: 3_000 });
      const early = filledInstanceRecord({ createdAt: 1_000 });
      const tieA = filledInstanceRecord({ createdAt: 2_000 });
      const tieB = filledInstanceRecord({ createdAt: 2_000 });
      for (const record of [late, early, tieA, tieB]) await instances.create(record);
      assert.deepEqual(await instances.list(), [early, tieA, tieB, late]);
    }));

    it('listPage walks every instance in creation order, a page at a time, across deletions', () => withStorage(harness, async ({ instances }) => {
      assert.deepEqual(await instances.listPage({ limit: 3 }), { items: [] });
      // createdAt against the creation order: pages follow creation, not the field.
      const records = Array.from({ length: 7 }, (_, i) => filledInstanceRecord({ createdAt: 10_000 - i }));
      for (const record of records) await instances.create(record);
      const first = await instances.listPage({ limit: 3 });
      assert.deepEqual(first.items, records.slice(0, 3));
      assert.equal(typeof first.next, 'string');
      // Deleting the last item of a page, and one of the next, keeps the walk going.
      await instances.delete(records[2]!.id);
      await instances.delete(records[4]!.id);
      const second = await instances.listPage({ limit: 3, after: first.next! });
      assert.deepEqual(second.items, [records[3], records[5], records[6]]);
      // A full last page: nothing follows, so no cursor.
      assert.equal(second.next, undefined);
      const whole = await instances.listPage({ limit: 5 });
      assert.deepEqual(whole, { items: [records[0], records[1], records[3], records[5], records[6]] });
      const later = filledInstanceRecord();
      await instances.create(later);
      const resumed = await instances.listPage({ limit: 10, after: (await instances.listPage({ limit: 5 })).next! });
      assert.deepEqual(resumed, { items: [later] });
    }));

    it('update merges shallowly, answers the new record, and an undefined value removes the field', () => withStorage(harness, async ({ instances }) => {
      const record = filledInstanceRecord();
      await instances.create(record);
      const flags = { ...record.flags, blocked: true };
      const updated = await instances.update(record.id, { name: 'renamed', flags, proxy: undefined, phoneConnected: false });
      const { proxy: _removed, ...rest } = record;
      const expected = { ...rest, name: 'renamed', flags, phoneConnected: false };
      assert.deepEqual(updated, expected);
      assert.deepEqual(await instances.get(record.id), expected);
      assert.equal(Object.hasOwn((await instances.get(record.id))!, 'proxy'), false);
    }));

    it('update of the key moves the key lookup, and refuses a key another instance holds', () => withStorage(harness, async ({ instances }) => {
      const a = filledInstanceRecord();
      const b = filledInstanceRecord();
      await instances.create(a);
      await instances.create(b);
      const newKey = uniqueId('key');
      await instances.update(a.id, { key: newKey });
      assert.equal(await instances.findByKey(a.key), null);
      assert.deepEqual(await instances.findByKey(newKey), { ...a, key: newKey });
      await assert.rejects(instances.update(a.id, { key: b.key }), ConflictError);
      assert.deepEqual(await instances.findByKey(b.key), b);
      assert.deepEqual(await instances.findByKey(newKey), { ...a, key: newKey });
    }));

    it('update of an unknown id throws NotFoundError', () => withStorage(harness, async ({ instances }) => {
      await assert.rejects(instances.update(uniqueId('ins'), { name: 'x' }), NotFoundError);
    }));

    it('delete removes the record and its key, and answers whether it existed', () => withStorage(harness, async ({ instances }) => {
      const a = filledInstanceRecord();
      const b = filledInstanceRecord();
      await instances.create(a);
      await instances.create(b);
      assert.equal(await instances.delete(a.id), true);
      assert.equal(await instances.delete(a.id), false);
      assert.equal(await instances.get(a.id), null);
      assert.equal(await instances.findByKey(a.key), null);
      assert.deepEqual(await instances.list(), [b]);
      await instances.create(filledInstanceRecord({ id: a.id, key: a.key, name: 'again' }));
      assert.equal((await instances.findByKey(a.key))?.name, 'again');
    }));
  });
}
