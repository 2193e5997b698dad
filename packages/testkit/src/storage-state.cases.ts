import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import { INHERITED_NAMES, uniqueId } from './storage-fixtures.js';
import { withStorage, type RecordStoreHarness } from './storage-harness.js';

/** StateRepository: JSON documents by namespace and id. */
export function describeStateCases(harness: RecordStoreHarness): void {
  describe('state', () => {
    it('put, get, overwrite and delete JSON documents', () => withStorage(harness, async ({ state }) => {
      const ns = uniqueId('sandbox');
      const doc = { accounts: [{ phone: '5511999990000', online: true }], counter: 3, note: null, nested: { deep: ['x'] } };
      await state.put(ns, 'network', doc);
      assert.deepEqual(await state.get(ns, 'network'), doc);
      await state.put(ns, 'network', 42);
      assert.equal(await state.get(ns, 'network'), 42);
      await state.put(ns, 'flag', false);
      assert.equal(await state.get(ns, 'flag'), false);
      await state.put(ns, 'text', 'plain');
      assert.equal(await state.get(ns, 'text'), 'plain');
      assert.equal(await state.get(ns, 'missing'), null);
      assert.equal(await state.get(uniqueId('other'), 'network'), null);
      assert.equal(await state.delete(ns, 'network'), true);
      assert.equal(await state.delete(ns, 'network'), false);
      assert.equal(await state.get(ns, 'network'), null);
    }));

    it('ids named like inherited members (constructor, __proto__, …) are ids like any other', () => withStorage(harness, async ({ state }) => {
      const ns = uniqueId('accounts');
      await state.put(ns, 'other', 1);
      for (const name of INHERITED_NAMES) {
        assert.equal(await state.get(ns, name), null, name);
        assert.equal(await state.delete(ns, name), false, name);
      }
      for (const name of INHERITED_NAMES) await state.put(ns, name, { name });
      for (const name of INHERITED_NAMES) assert.deepEqual(await state.get(ns, name), { name }, name);
      assert.deepEqual((await state.list(ns)).map((entry) => entry.id), [...INHERITED_NAMES, 'other'].sort());
      assert.equal(await state.get(uniqueId('empty'), 'constructor'), null);
    }));

    it('stores copies: mutating the written or the read document changes nothing', () => withStorage(harness, async ({ state }) => {
      const ns = uniqueId('labels');
      const doc = { labels: [{ id: '1', name: 'New' }] };
      await state.put(ns, 'set', doc);
      doc.labels[0]!.name = 'mutated';
      const read = await state.get<typeof doc>(ns, 'set');
      read!.labels.push({ id: '2', name: 'added' });
      assert.deepEqual(await state.get(ns, 'set'), { labels: [{ id: '1', name: 'New' }] });
    }));

    it('lists a namespace ordered by id', () => withStorage(harness, async ({ state }) => {
      const ns = uniqueId('dedup');
      for (const id of ['b', 'a', 'c10', 'c2']) await state.put(ns, id, { id });
      await state.put(`${ns}x`, 'a', 'other namespace');
      assert.deepEqual(await state.list(ns), ['a', 'b', 'c10', 'c2'].map((id) => ({ id, value: { id } })));
      assert.deepEqual(await state.list(uniqueId('empty')), []);
    }));

    it('clearPrefix deletes every namespace starting with the prefix, taking wildcards literally', () => withStorage(harness, async ({ state }) => {
      const root = uniqueId('plugin');
      await state.put(`${root}:a_b`, '1', 1);
      await state.put(`${root}:a_b:sub`, '2', 2);
      await state.put(`${root}:axb`, '3', 3);
      await state.put(`${root}:a%`, '4', 4);
      await state.put(`${root}:a*`, '5', 5);
      await state.put(root, '6', 6);
      await state.clearPrefix(`${root}:a_b`);
      assert.deepEqual(await state.list(`${root}:a_b`), []);
      assert.deepEqual(await state.list(`${root}:a_b:sub`), []);
      assert.deepEqual(await state.list(`${root}:axb`), [{ id: '3', value: 3 }]);
      await state.clearPrefix(`${root}:a%`);
      assert.deepEqual(await state.list(`${root}:a%`), []);
      await state.clearPrefix(`${root}:a*`);
      assert.deepEqual(await state.list(`${root}:a*`), []);
      assert.deepEqual(await state.list(`${root}:axb`), [{ id: '3', value: 3 }]);
      assert.deepEqual(await state.list(root), [{ id: '6', value: 6 }]);
      await state.clearPrefix(`${root}:`);
      assert.deepEqual(await state.list(`${root}:axb`), []);
      assert.deepEqual(await state.list(root), [{ id: '6', value: 6 }]);
    }));
  });
}
