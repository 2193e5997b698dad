import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { DISCARD_DEAD, PURGE_DEAD } from '../src/repositories/delivery-queue.pg.js';
import { PURGE_EVENTS } from '../src/repositories/event-log.pg.js';
import { LIST } from '../src/repositories/outbound-queue.pg.js';
import { CLEAR_PREFIX, NAMESPACES } from '../src/repositories/state.pg.js';
import { openTestStorage, postgresUrlOrSkip, type StorageUnderTest } from './pg-env.js';
import { countOf, planYoungThenGrow, prepared, rowsFetched } from './young-plans.js';

/**
 * Purges, the outbound queue's page and the state's prefixes, planned on young tables (young-plans.ts) that
 * then grow to 3,000 rows: each reads the rows it answers or deletes (and a probe or two), never the table.
 */
describe('@parley/storage-postgres purges, pages and prefixes planned on a young table', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: purges, pages and prefixes planned on a young table');
  if (!serverUrl) return;
  let t: StorageUnderTest;
  let admin: pg.Client;
  const count = (from: string) => countOf(admin, from);

  const purgeEvents = (before: string) => prepared('purge_events', PURGE_EVENTS, [before]);
  const purgeDead = (before: number) => prepared('purge_dead', PURGE_DEAD, [before]);
  const discardDead = (ids: string[]) => prepared('discard_dead', DISCARD_DEAD, ['ins_a', ids]);
  const page = (limit: number, offset: number) => prepared('outbound_page', LIST, ['ins_a', limit, offset]);
  const namespaces = (prefix: string) => prepared('namespaces', NAMESPACES, [prefix]);
  const clearPrefix = (prefix: string) => prepared('clear_prefix', CLEAR_PREFIX, [prefix]);

  before(async () => {
    t = await openTestStorage(serverUrl, 'young_s', { schema: 'young_s' });
    ({ admin } = t);
    await admin.query('SET search_path TO young_s');
    await planYoungThenGrow(admin, 'events', (from, to) => admin.query(
      "INSERT INTO events (id, instance, type, at, event) SELECT lpad(g::text, 10, '0'), 'ins_a', 't', g, 'e' FROM generate_series($1::int, $2::int) AS g",
      [from, to],
    ), 3_000, [purgeEvents('0000000002')]);
    await planYoungThenGrow(admin, 'deliveries', (from, to) => admin.query(
      `INSERT INTO deliveries (id, instance, url, format, event_id, event_type, body, created_at, next_attempt_at, dead_at)
       SELECT 'd' || g, 'ins_a', 'u' || (g % 2), 'json', 'e' || g, 't', 'b', g, g, CASE WHEN g % 3 = 0 THEN g END
       FROM generate_series($1::int, $2::int) AS g ORDER BY g`,
      [from, to],
    ), 3_000, [purgeDead(4), discardDead(['d3'])]);
    // Due times in another order than the seqs: the page follows due times.
    await planYoungThenGrow(admin, 'outbound', (from, to) => admin.query(
      `INSERT INTO outbound (instance, id, lane, ord, due_at, created_at, payload)
       SELECT 'ins_a', 'o' || g, 'l' || (g % 7), g, (g * 7) % 3001, g, 'p' FROM generate_series($1::int, $2::int) AS g ORDER BY g`,
      [from, to],
    ), 3_000, [page(5, 2)]);
    // 300 namespaces of 10 entries each: ns00000 … ns00299.
    await planYoungThenGrow(admin, 'state', (from, to) => admin.query(
      "INSERT INTO state (namespace, id, value) SELECT 'ns' || lpad((g / 10)::text, 5, '0'), 'i' || g, 'v' FROM generate_series($1::int, $2::int) AS g",
      [from, to],
    ), 3_000, [namespaces('ns0000'), clearPrefix('ns00001')]);
  });
  after(() => t.close());

  it('purges the event log along its ids, not the log', async () => {
    const read = await rowsFetched(admin, 'young_s', 'events', purgeEvents('0000000004'), async () => {
      assert.deepEqual((await admin.query('SELECT min(id) AS id, count(*)::int AS n FROM events')).rows, [{ id: '0000000004', n: 2_997 }]);
    });
    // The log's first id, then the three entries before the bound.
    assert.ok(read <= 3 + 2, `${read} events fetched to purge 3`);
  });

  it('purges and discards dead letters along their index and by their ids, not the queue', async () => {
    const purged = await rowsFetched(admin, 'young_s', 'deliveries', purgeDead(10), async () => {
      assert.equal(await count('deliveries WHERE dead_at < 10'), 0);
      assert.equal(await count('deliveries'), 2_997);
    });
    assert.ok(purged <= 3 + 2, `${purged} deliveries fetched to purge 3 dead letters`);
    const ids = ['d3', 'd6', 'd2997', 'd4', 'nope']; // d4 is live, nope unknown
    const discarded = await rowsFetched(admin, 'young_s', 'deliveries', discardDead(ids), async () => {
      assert.equal(await count("deliveries WHERE id IN ('d3', 'd6', 'd2997')"), 0);
      assert.equal(await count('deliveries'), 2_997);
    });
    // Each id looked up, each dead letter found fetched again by its address to be deleted.
    assert.ok(discarded <= 2 * ids.length, `${discarded} deliveries fetched to discard ${ids.length} ids`);
  });

  it('reads a page of the outbound queue along its due times, not the instance\'s queue', async () => {
    const read = await rowsFetched(admin, 'young_s', 'outbound', page(10, 20), (rows) => {
      const dues = (rows as { due_at: number; list_total: number }[]).map((row) => Number(row.due_at));
      assert.deepEqual(dues, Array.from({ length: 10 }, (_, i) => 21 + i));
    });
    // The 30 entries up to the page's end walked, then the page's 10 read.
    assert.ok(read <= 2 * 30 + 10, `${read} outbound entries fetched for a page of 10 at offset 20`);
    const past = await rowsFetched(admin, 'young_s', 'outbound', page(10, 2_995), (rows) => {
      assert.deepEqual((rows as { due_at: number }[]).map((row) => Number(row.due_at)), [2_996, 2_997, 2_998, 2_999, 3_000]);
    });
    assert.ok(past <= 2 * 3_000 + 10, `${past} outbound entries fetched for the last page`);
  });

  it('lists and clears a prefix\'s namespaces, not every namespace after it', async () => {
    const listed = await rowsFetched(admin, 'young_s', 'state', namespaces('ns0001'), (rows) => {
      assert.deepEqual((rows as { namespace: string }[]).map((row) => row.namespace), Array.from({ length: 10 }, (_, i) => `ns0001${i}`));
    });
    // One probe per namespace of the prefix, and one past them.
    assert.ok(listed <= 11, `${listed} state entries fetched to list 10 namespaces`);
    const cleared = await rowsFetched(admin, 'young_s', 'state', clearPrefix('ns0001'), async () => {
      assert.equal(await count("state WHERE namespace LIKE 'ns0001%'"), 0);
      assert.equal(await count('state'), 2_900);
    });
    // The walk's probes, then the prefix's 100 entries.
    assert.ok(cleared <= 11 + 100, `${cleared} state entries fetched to clear 100`);
  });
});
