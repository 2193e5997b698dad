import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewOutbound } from '@parley/core';
import type { PostgresStorage } from '../src/index.js';
import { openTestStorage, postgresUrlOrSkip, statementsOf, type StorageUnderTest } from './pg-env.js';

function entry(instance: string, i: number, payload = `{"n":${i}}`): NewOutbound {
  return { id: `e${String(i).padStart(2, '0')}`, instance, lane: `sandbox:${i % 3}`, dueAt: 1, createdAt: 1, payload };
}

/**
 * An instance's enqueues run in call order, one statement after another; those made while one is in
 * flight go together in the next statement, each as it would go alone. Its completions likewise.
 */
describe('@parley/storage-postgres enqueues of one instance together', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: enqueues together');
  if (!serverUrl) return;
  let t: StorageUnderTest;
  let storage: PostgresStorage;

  before(async () => {
    t = await openTestStorage(serverUrl, 'enqueues', { schema: 'enqueues' });
    ({ storage } = t);
  });
  after(() => t.close());

  it('sends a burst in two statements, in call order, under the bound', async () => {
    const items = Array.from({ length: 30 }, (_, i) => entry('ins_b', i));
    let outcomes: string[] = [];
    const statements = await statementsOf(storage, async () => {
      outcomes = await Promise.all(items.map((item) => storage.outbound.enqueue(item, 25)));
    });
    assert.equal(statements, 2, 'the first enqueue alone, the 29 made meanwhile together');
    assert.deepEqual(outcomes, [...Array<string>(25).fill('queued'), ...Array<string>(5).fill('full')]);
    assert.equal(await storage.outbound.count('ins_b'), 25);
    const listed = (await storage.outbound.list('ins_b', { limit: 100, offset: 0 })).items;
    assert.deepEqual(listed.map((o) => o.id), items.slice(0, 25).map((o) => o.id), 'stored in call order');
    // Each lane's head is its first entry in call order.
    const heads = await storage.outbound.claim({ now: 2, limit: 10, leaseMs: 1_000 });
    assert.deepEqual(heads.map((o) => o.id).sort(), ['e00', 'e01', 'e02']);
  });

  it('keeps a statement\'s payloads under 4 MiB: heavy enqueues go in statements of their own', async () => {
    const heavy = 'x'.repeat(3 * 1024 * 1024);
    const items = [0, 1, 2].map((i) => entry('ins_h', i, `"${heavy}"`));
    const statements = await statementsOf(storage, () => Promise.all(items.map((item) => storage.outbound.enqueue(item, 10))));
    assert.equal(statements, 3);
    assert.equal(await storage.outbound.count('ins_h'), 3);
  });

  it('answers a duplicate id in a batch as queued, stored once', async () => {
    const first = entry('ins_d', 1);
    const outcomes = await Promise.all([entry('ins_d', 0), first, { ...first, payload: '{"again":true}' }].map((item) => storage.outbound.enqueue(item, 10)));
    assert.deepEqual(outcomes, ['queued', 'queued', 'queued']);
    assert.equal(await storage.outbound.count('ins_d'), 2);
    assert.equal((await storage.outbound.get('ins_d', first.id))?.payload, first.payload);
  });

  it('fails only the enqueue PostgreSQL refuses; the others of its batch are stored', async () => {
    const items = [entry('ins_f', 0), entry('ins_f', 1), entry('ins_f', 2, 'nul \u0000 byte'), entry('ins_f', 3)];
    const settled = await Promise.allSettled(items.map((item) => storage.outbound.enqueue(item, 10)));
    assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    assert.deepEqual((await storage.outbound.list('ins_f', { limit: 10, offset: 0 })).items.map((o) => o.id), ['e00', 'e01', 'e03']);
    assert.equal(await storage.outbound.count('ins_f'), 3);
  });

  it('completes a burst in two statements: each lane on to its next head, the count kept, unknown ids ignored', async () => {
    const items = Array.from({ length: 9 }, (_, i) => entry('ins_c', i));
    for (const item of items) await storage.outbound.enqueue(item, 100);
    // The first two of each lane (e00–e05), and an id never queued.
    const done = [...items.slice(0, 6).map((o) => o.id), 'unknown'];
    const statements = await statementsOf(storage, () => Promise.all(done.map((id) => storage.outbound.complete('ins_c', id))));
    assert.equal(statements, 2, 'the first completion alone, the 6 made meanwhile together');
    assert.equal(await storage.outbound.count('ins_c'), 3);
    const heads = await storage.outbound.claim({ now: 2, limit: 10, leaseMs: 1_000 });
    assert.deepEqual(heads.filter((o) => o.instance === 'ins_c').map((o) => o.id).sort(), ['e06', 'e07', 'e08']);
    await Promise.all(['e06', 'e07', 'e08'].map((id) => storage.outbound.complete('ins_c', id)));
    assert.equal(await storage.outbound.count('ins_c'), 0);
    assert.equal((await t.admin.query("SELECT count(*)::int AS n FROM enqueues.outbound_lanes WHERE instance = 'ins_c'")).rows[0].n, 0, 'empty lanes dropped');
  });
});
