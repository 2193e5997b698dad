import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { NewDelivery } from '@parley/core';
import { SqliteStorage } from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'parley-sqlite-batch-'));
let files = 0;
after(() => rmSync(root, { recursive: true, force: true }));

async function opened(): Promise<SqliteStorage> {
  const storage = new SqliteStorage({ file: join(root, `case-${++files}.db`) });
  await storage.init();
  return storage;
}

const T = 5_000_000;
const LEASE = 30_000;

function delivery(n: number, url: string, instance = 'ins_a', createdAt = T): NewDelivery {
  return { id: `dlv_${url}_${n}`, instance, url, format: 'native', eventId: `evt_${n}`, eventType: 'message', body: `{"n":${n}}`, createdAt };
}
const queued = (d: NewDelivery) => ({ ...d, attempts: 0, nextAttemptAt: d.createdAt });

describe('SqliteDeliveryQueue.enqueueInBatch', () => {
  it('writes into the open batch and answers before its commit; durable once committed, claimable only then', async () => {
    const storage = await opened();
    try {
      const d = delivery(1, 'http://127.0.0.1:9/a');
      let committed = false;
      const { durable } = await storage.deliveries.enqueueInBatch([d], [{ id: 'evt_1', instance: 'ins_a', type: 'message', at: T, event: '{}' }]);
      void durable.then(() => (committed = true));
      assert.equal(committed, false, 'answered before the commit');
      await durable;
      assert.deepEqual(await storage.deliveries.claim({ now: T, limit: 10, leaseMs: LEASE }), [queued(d)]);
      assert.equal((await storage.events.read({ limit: 10 })).length, 1, 'the log entry in the same write');
    } finally {
      await storage.close();
    }
  });

  it('a long batch goes in several multi-row inserts, in lane order; an id queued already, in it or before, is kept as it was; acknowledged in one call', async () => {
    const storage = await opened();
    try {
      const lane = Array.from({ length: 70 }, (_, n) => delivery(n, 'long'));
      await storage.deliveries.enqueue([lane[5]!]);
      const { durable } = await storage.deliveries.enqueueInBatch([...lane, { ...lane[40]!, body: '{"again":true}' }]);
      await durable;
      assert.equal((await storage.deliveries.stats('ins_a')).totalPending, 70);
      const claimed = await storage.deliveries.claim({ now: T, limit: 1, leaseMs: LEASE, perLane: 100 });
      // lane[5] was queued first, then the rest in the batch's order; the repeated id keeps its first body.
      assert.deepEqual(claimed.map((d) => d.id), [lane[5]!, ...lane.filter((_, n) => n !== 5)].map((d) => d.id));
      assert.equal(claimed.find((d) => d.id === lane[40]!.id)!.body, lane[40]!.body);
      // Settled in one call: the 70 delivered ones leave in three DELETEs, each counted once with its time; an unknown id is ignored.
      await storage.deliveries.complete([...claimed, delivery(99, 'unknown')].map((d, n) => ({ id: d.id, outcome: 'sent' as const, status: 200, responseTimeMs: n < 35 ? 2 : 4 })));
      assert.deepEqual(await storage.deliveries.stats('ins_a'), { totalSent: 70, totalFailed: 0, totalPending: 0, avgResponseTime: 3 });
    } finally {
      await storage.close();
    }
  });
});
