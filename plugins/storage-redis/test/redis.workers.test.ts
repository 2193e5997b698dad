import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { NewDelivery } from '@parley/core';
import { RedisStorage } from '../src/index.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';

const T = 1_000_000;
const LANES = 10;
const PER_LANE = 6;

describe('@parley/storage-redis with several servers on one prefix', () => {
  const url = redisUrlOrSkip('redis multi-worker delivery');
  if (!url) return;
  const prefix = uniquePrefix('workers');
  after(() => deleteKeys(url, prefix));

  it('two storages claiming concurrently never get the same delivery, and each lane stays in order', async () => {
    const workers = [new RedisStorage({ url, keyPrefix: prefix }), new RedisStorage({ url, keyPrefix: prefix })];
    await Promise.all(workers.map((worker) => worker.init()));
    try {
      const lanes: NewDelivery[][] = Array.from({ length: LANES }, (_, lane) => Array.from({ length: PER_LANE }, (_, i) => ({
        id: `dlv_${lane}_${i}`, instance: 'ins_workers', url: `http://127.0.0.1:${9100 + lane}/hook`, format: 'native',
        eventId: 'message-text', eventType: 'messages.upsert', body: `{"lane":${lane},"i":${i}}`, createdAt: T + i,
      })));
      // Enqueued by both servers, interleaved, in lane order.
      for (let i = 0; i < PER_LANE; i++) await workers[i % 2]!.deliveries.enqueue(lanes.map((lane) => lane[i]!));

      const claimLog: string[] = [];
      const perWorker: string[][] = [[], []];
      const total = LANES * PER_LANE;
      await Promise.all(workers.map(async (worker, w) => {
        for (let round = 0; round < 200 && claimLog.length < total; round++) {
          const claimed = await worker.deliveries.claim({ now: T + PER_LANE, limit: 3, leaseMs: 60_000 });
          for (const delivery of claimed) {
            claimLog.push(delivery.id);
            perWorker[w]!.push(delivery.id);
          }
          for (const delivery of claimed) await worker.deliveries.ack(delivery.id, { status: 200, responseTimeMs: 10 });
          if (claimed.length === 0) await new Promise((resolve) => setImmediate(resolve));
        }
      }));

      assert.equal(claimLog.length, total);
      assert.equal(new Set(claimLog).size, total, 'a delivery was claimed twice');
      assert.ok(perWorker[0]!.length > 0 && perWorker[1]!.length > 0, 'both workers took part');
      for (const lane of lanes) {
        const ids = lane.map((delivery) => delivery.id);
        assert.deepEqual(claimLog.filter((id) => ids.includes(id)), ids);
      }
      assert.deepEqual(await workers[0]!.deliveries.stats('ins_workers'), { totalSent: total, totalFailed: 0, totalPending: 0, avgResponseTime: 10 });
      assert.equal(await workers[1]!.deliveries.nextDueAt(), null);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
    }
  });

  it('a lease that expires (crashed worker) lets the other server claim the delivery once', async () => {
    const workers = [new RedisStorage({ url, keyPrefix: `${prefix}lease:` }), new RedisStorage({ url, keyPrefix: `${prefix}lease:` })];
    await Promise.all(workers.map((worker) => worker.init()));
    try {
      const delivery: NewDelivery = {
        id: 'dlv_lease', instance: 'ins_lease', url: 'http://127.0.0.1:9/hook', format: 'meta', eventId: 'message-text',
        eventType: 'messages', body: '{}', createdAt: T,
      };
      await workers[0]!.deliveries.enqueue([delivery]);
      assert.equal((await workers[0]!.deliveries.claim({ now: T, limit: 5, leaseMs: 1_000 })).length, 1);
      assert.deepEqual(await workers[1]!.deliveries.claim({ now: T + 999, limit: 5, leaseMs: 1_000 }), []);
      const [first, second] = await Promise.all(workers.map((worker) => worker.deliveries.claim({ now: T + 1_000, limit: 5, leaseMs: 1_000 })));
      assert.deepEqual([first!.length + second!.length, [...first!, ...second!][0]?.id], [1, 'dlv_lease']);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
    }
  });
});
