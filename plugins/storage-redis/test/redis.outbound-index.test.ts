import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createClient } from 'redis';
import { RedisStorage } from '../src/index.js';
import { laneId, RedisKeys } from '../src/redis-keys.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';

const INSTANCES = ['ins_a', 'ins_b'];
const LANES = ['l1', 'l2', 'l3'];
const T = 1_000_000;

/** Park and Miller's minimal standard generator: deterministic, so a failing sequence replays the same. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48_271) % 2_147_483_647) / 2_147_483_647;
}

/*
 * The outbound queue's enqueue sets its lane's due score itself rather than recomputing it from the
 * lane (repositories/outbound-queue.scripts.ts): this checks, after every step of a long mixed run,
 * that the indexes hold exactly what a recomputation from the entries gives.
 */
describe('@parley/storage-redis outbound queue indexes', () => {
  const url = redisUrlOrSkip('redis outbound queue indexes');
  if (!url) return;
  const prefix = uniquePrefix('outbound-index');
  after(() => deleteKeys(url, prefix));

  it('after every enqueue, claim, release, complete, cancel, pause and resume, each lane of an unpaused instance is due at its head\'s lease end or due time, and nothing else is indexed', async () => {
    const storage = new RedisStorage({ url, keyPrefix: prefix });
    const client = createClient({ url });
    await Promise.all([storage.init(), client.connect()]);
    const keys = new RedisKeys(prefix);
    const k = { due: `${prefix}ob:due`, paused: `${prefix}ob:paused`, laneInstance: `${prefix}ob:lane-instance` };

    async function check(step: string): Promise<void> {
      const expectedDue = new Map<string, number>();
      const expectedLanes = new Map<string, string>();
      for (const instance of INSTANCES) {
        const paused = (await client.sIsMember(k.paused, instance)) === 1;
        for (const lane of LANES) {
          const laneKey = laneId(instance, lane);
          const [head] = await client.zRange(`${keys.outboundLaneStem}${laneKey}`, 0, 0);
          if (!head) continue;
          expectedLanes.set(laneKey, instance);
          const item = await client.hmGet(`${keys.outboundItemStem}${instance}:${head.slice(17)}`, ['leasedUntil', 'dueAt']);
          if (!paused) expectedDue.set(laneKey, Number(item[0] ?? item[1]));
        }
        const registered = (await client.sMembers(`${keys.outboundLanesStem}${instance}`)).sort();
        assert.deepEqual(registered, [...expectedLanes].filter(([, of]) => of === instance).map(([laneKey]) => laneKey).sort(), `${step}: lanes of ${instance}`);
      }
      const due = new Map((await client.zRangeWithScores(k.due, 0, -1)).map(({ value, score }) => [value, score]));
      assert.deepEqual(due, expectedDue, `${step}: due lanes`);
      assert.deepEqual(new Map(Object.entries(await client.hGetAll(k.laneInstance))), expectedLanes, `${step}: lane → instance`);
    }

    try {
      const next = random(26);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
      const leased: { instance: string; id: string }[] = [];
      const enqueued: { instance: string; id: string }[] = [];
      const outcomes = new Set<string>();
      let now = T;
      for (let step = 0; step < 400; step++) {
        now += Math.floor(next() * 50);
        const instance = pick(INSTANCES);
        const roll = next();
        let label: string;
        if (roll < 0.45) {
          const id = `m${step}`;
          // Due now, in the past (it may head a lane), or later; with or without a lease asked for.
          const dueAt = now + pick([-100, 0, 0, 200]);
          const outcome = await storage.outbound.enqueue({ instance, id, lane: pick(LANES), dueAt, createdAt: now, payload: '{}' }, 1000,
            next() < 0.6 ? { now, leaseMs: 300 } : undefined);
          if (outcome === 'leased') leased.push({ instance, id });
          outcomes.add(outcome);
          enqueued.push({ instance, id });
          label = `enqueue ${id} due ${dueAt - now}: ${outcome}`;
        } else if (roll < 0.6) {
          const claimed = await storage.outbound.claim({ now, limit: 2, leaseMs: 300 });
          leased.push(...claimed.map((entry) => ({ instance: entry.instance, id: entry.id })));
          label = `claim ${claimed.length}`;
        } else if (roll < 0.75 && leased.length) {
          const entry = leased.splice(Math.floor(next() * leased.length), 1)[0]!;
          await storage.outbound.complete(entry.instance, entry.id);
          label = `complete ${entry.id}`;
        } else if (roll < 0.85 && leased.length) {
          const entry = leased.splice(Math.floor(next() * leased.length), 1)[0]!;
          await storage.outbound.release(entry.instance, entry.id, { dueAt: now + pick([0, 100]), ...(next() < 0.5 ? { failed: { error: 'x' } } : {}) });
          label = `release ${entry.id}`;
        } else if (roll < 0.93 && enqueued.length) {
          const entry = pick(enqueued);
          label = `cancel ${entry.id}: ${await storage.outbound.cancel(entry.instance, entry.id, now)}`;
        } else {
          const paused = next() < 0.5;
          await storage.outbound.setPaused(instance, paused);
          label = `${paused ? 'pause' : 'resume'} ${instance}`;
        }
        await check(`step ${step} (${label})`);
      }
      // The run went through every enqueue outcome but a full queue.
      assert.deepEqual([...outcomes].sort(), ['leased', 'paused', 'queued']);
    } finally {
      await client.close();
      await storage.close();
    }
  });
});
