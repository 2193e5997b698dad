import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { RELEASE, RENEW } from '../src/cluster/pg-cluster-store.js';
import { HIT } from '../src/cluster/pg-rate-limiter.js';
import { PUBLISH_STORED } from '../src/cluster/pg-signals.js';
import { openTestStorage, postgresUrlOrSkip, type StorageUnderTest } from './pg-env.js';
import { countOf, planYoungThenGrow, prepared, rowsFetched } from './young-plans.js';

/**
 * The cluster's statements that every node runs on a timer or per request, planned on young tables
 * (young-plans.ts) grown to 3,000 leases and rate-limit keys: each reads the rows it names (and the few rows it
 * sweeps), never every lease ever taken or every key counted.
 */
describe('@parley/storage-postgres cluster statements planned on a young table', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: cluster statements planned on a young table');
  if (!serverUrl) return;
  let t: StorageUnderTest;
  let admin: pg.Client;
  const count = (from: string) => countOf(admin, from);

  const renew = (instances: string[], tokens: number[]) => prepared('renew', RENEW, [instances, tokens, 60_000]);
  const release = (node: string, instances: string[], tokens: number[]) => prepared('release', RELEASE, [node, instances, tokens]);
  const hit = (key: string) => prepared('hit', HIT, ['limiter', key, 10, 60, 0]);
  const publish = (message: string) => prepared('publish', PUBLISH_STORED, ['parley_young', message, 'nobody']);

  before(async () => {
    t = await openTestStorage(serverUrl, 'young_c', { schema: 'young_c' });
    ({ admin } = t);
    await admin.query('SET search_path TO young_c');
    // Lease i<g> at token g, held by n<g % 3>, for an hour.
    await planYoungThenGrow(admin, 'cluster_leases', (from, to) => admin.query(
      `INSERT INTO cluster_leases (instance, token, node, expires_at, held_by)
       SELECT 'i' || g, g, 'n' || (g % 3), clock_timestamp() + interval '1 hour', 'n' || (g % 3) FROM generate_series($1::int, $2::int) AS g`,
      [from, to],
    ), 3_000, [renew(['i1'], [1]), release('n1', ['i1'], [1])]);
    // Windows ending in an hour, but those of k1000, k2000 and k3000, which ended two hours ago.
    await planYoungThenGrow(admin, 'rate_limits', (from, to) => admin.query(
      `INSERT INTO rate_limits (name, key, points, window_end)
       SELECT 'limiter', 'k' || g, 1, clock_timestamp() + CASE WHEN g % 1000 = 0 THEN interval '-2 hours' ELSE interval '1 hour' END
       FROM generate_series($1::int, $2::int) AS g`,
      [from, to],
    ), 3_000, [hit('k1')]);
    // Payloads m<g> stored now, but m1000, m2000 and m3000, stored two minutes ago.
    await planYoungThenGrow(admin, 'signal_payloads', (from, to) => admin.query(
      `INSERT INTO signal_payloads (at, message)
       SELECT clock_timestamp() - CASE WHEN g % 1000 = 0 THEN interval '2 minutes' ELSE interval '0' END, 'm' || g
       FROM generate_series($1::int, $2::int) AS g`,
      [from, to],
    ), 3_000, [publish('first')]);
  });
  after(() => t.close());

  it('renews leases by their instances, not every lease', async () => {
    const read = await rowsFetched(admin, 'young_c', 'cluster_leases', renew(['i1', 'i2', 'i2999', 'nope'], [1, 99, 2_999, 4]), (rows) => {
      assert.deepEqual((rows as { instance: string }[]).map((row) => row.instance).sort(), ['i1', 'i2999']); // i2 is at token 2
    });
    // Each lease found by its instance, then fetched again to be updated.
    assert.ok(read <= 2 * 4, `${read} leases fetched to renew 4`);
  });

  it('releases leases by their instances, not the node\'s every lease', async () => {
    const read = await rowsFetched(admin, 'young_c', 'cluster_leases', release('n1', ['i1', 'i4', 'i2', 'nope'], [1, 4, 2, 5]), async () => {
      assert.equal(await count('cluster_leases WHERE expires_at IS NULL'), 2); // i2 is n2's
      assert.equal(await count("cluster_unowned WHERE instance IN ('i1', 'i4')"), 2);
    });
    assert.ok(read <= 2 * 4, `${read} leases fetched to release 4`);
  });

  it('counts a rate-limit hit and sweeps the windows long ended along their end, not every key', async () => {
    const read = await rowsFetched(admin, 'young_c', 'rate_limits', hit('k5'), async (rows) => {
      assert.deepEqual(rows, [{ blocked_ms: '0' }]);
      assert.equal(await count("rate_limits WHERE key IN ('k1000', 'k2000', 'k3000')"), 0);
      assert.equal(await count("rate_limits WHERE key = 'k5' AND points = 2"), 1);
    });
    // The 3 ended windows found along rate_limits_by_end, each by its key, then by its address; the hit's key.
    assert.ok(read <= 3 * 3 + 2, `${read} rate-limit rows fetched for a hit sweeping 3`);
  });

  it('publishes a stored payload, deleting those past their minute along their age, not every payload', async () => {
    const read = await rowsFetched(admin, 'young_c', 'signal_payloads', publish('large'), async (rows) => {
      assert.deepEqual(rows, [{ pg_notify: '', n: '0' }]);
      assert.equal(await count("signal_payloads WHERE message IN ('m1000', 'm2000', 'm3000')"), 0);
      assert.equal(await count("signal_payloads WHERE message = 'large'"), 1);
    });
    // The oldest payload's age, then the 3 past their minute.
    assert.ok(read <= 3 + 2, `${read} payloads fetched to delete 3`);
  });
});
