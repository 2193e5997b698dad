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
      const { durable, leased } = await storage.deliveries.enqueueInBatch([d], [{ id: 'evt_1', instance: 'ins_a', type: 'message', at: T, event: '{}' }]);
      assert.deepEqual(leased, []);
      void durable.then(() => (committed = true));
      assert.equal(committed, false, 'answered before the commit');
      await durable;
      assert.deepEqual(await storage.deliveries.claim({ now: T, limit: 10, leaseMs: LEASE }), [queued(d)]);
      assert.equal((await storage.events.read({ limit: 10 })).length, 1, 'the log entry in the same write');
    } finally {
      await storage.close();
    }
  });

  it('with a lease: the heads of empty lanes are written leased with their followers, up to the limit; lanes holding a delivery are not', async () => {
    const storage = await opened();
    try {
      const busy = delivery(0, 'busy');
      await storage.deliveries.enqueue([busy]);
      const [a1, a2, a3] = [1, 2, 3].map((n) => delivery(n, 'a'));
      const b1 = delivery(1, 'b');
      const c1 = delivery(1, 'c');
      const busy1 = delivery(1, 'busy');
      const later = delivery(1, 'later', 'ins_a', T + 60_000);
      const { durable, leased } = await storage.deliveries.enqueueInBatch([a1!, busy1, a2!, b1, a3!, c1, later], [], { now: T, leaseMs: LEASE, limit: 2, perLane: 2 });
      await durable;
      // Lane a (two of three: perLane), lane b; lane c is past the limit, busy holds a delivery, later is not due.
      assert.deepEqual(leased, [queued(a1!), queued(a2!), queued(b1)]);
      // A claim takes the lanes left: busy's head and c; never a leased lane, nor a3 behind a leased head.
      assert.deepEqual((await storage.deliveries.claim({ now: T, limit: 10, leaseMs: LEASE, perLane: 5 })).map((d) => d.id).sort(),
        [busy.id, busy1.id, c1.id].sort());
      // Settled as a claim's batch: a3 is claimable next, in lane order.
      await storage.deliveries.complete([
        { id: a1!.id, outcome: 'sent', status: 200, responseTimeMs: 1 }, { id: a2!.id, outcome: 'sent', status: 200, responseTimeMs: 1 },
      ]);
      assert.deepEqual((await storage.deliveries.claim({ now: T, limit: 10, leaseMs: LEASE })).map((d) => d.id), [a3!.id]);
      // After a crash, a leased lane is claimed again once its lease expires, followers and all.
      assert.deepEqual((await storage.deliveries.claim({ now: T + LEASE, limit: 10, leaseMs: LEASE, perLane: 5 })).map((d) => d.id).filter((id) => id.includes('_b_')),
        [b1.id]);
    } finally {
      await storage.close();
    }
  });

  it('an id queued already is kept as it was and not answered leased', async () => {
    const storage = await opened();
    try {
      const d = delivery(1, 'again');
      await storage.deliveries.enqueue([d]);
      await storage.deliveries.complete([{ id: d.id, outcome: 'released' }]);
      const claimed = await storage.deliveries.claim({ now: T, limit: 1, leaseMs: LEASE });
      assert.deepEqual(claimed.map((x) => x.id), [d.id]);
      // Its lane holds it (leased by the claim): a second write of it leases nothing.
      const { leased } = await storage.deliveries.enqueueInBatch([d], [], { now: T, leaseMs: LEASE, limit: 5, perLane: 5 });
      assert.deepEqual(leased, []);
      assert.equal((await storage.deliveries.stats('ins_a')).totalPending, 1);
    } finally {
      await storage.close();
    }
  });
});
