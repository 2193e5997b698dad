import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { DELIVERED, FAILED, FOLLOWERS, LIVE_LANES, RELEASED } from '../src/repositories/delivery-queue.pg.js';
import { openTestStorage, postgresUrlOrSkip, type StorageUnderTest } from './pg-env.js';
import { planYoungThenGrow, prepared, rowsFetched, type Call } from './young-plans.js';

/**
 * The delivery queue's statements by key, planned on a young `deliveries` (young-plans.ts) that then grows
 * to 3,000 deliveries of one instance (every third one dead): each reads the deliveries it names, not the
 * queue (`deliveries_lanes` holds every live delivery, and a young plan took it for an index on the id).
 */
describe('@parley/storage-postgres delivery queue plans made on a young table', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: delivery queue plans made on a young table');
  if (!serverUrl) return;
  let t: StorageUnderTest;
  let admin: pg.Client;
  const calls: Record<string, Call> = {
    delivered: prepared('delivered', DELIVERED, ['d4']),
    released: prepared('released', RELEASED, ['d5']),
    failed: prepared('failed', FAILED, ['d7', 99, 'boom', 500, 1]),
    lanes: prepared('lanes', LIVE_LANES, [['d4', 'd5', 'd6', 'nope']]),
  };
  const followers = (head: string) => prepared('followers', FOLLOWERS, [[head], 3]);
  const measure = (call: Call, check: (rows: unknown[]) => void) => rowsFetched(admin, 'young_q', 'deliveries', call, check);

  before(async () => {
    t = await openTestStorage(serverUrl, 'young_q', { schema: 'young_q' });
    ({ admin } = t);
    await admin.query('SET search_path TO young_q');
    await planYoungThenGrow(admin, 'deliveries', (from, to) => admin.query(
      `INSERT INTO deliveries (id, instance, url, format, event_id, event_type, body, created_at, next_attempt_at, dead_at)
       SELECT 'd' || g, 'ins_a', 'u' || (g % 2), 'json', 'e' || g, 't', 'b', g, g, CASE WHEN g % 3 = 0 THEN g END
       FROM generate_series($1::int, $2::int) AS g ORDER BY g`,
      [from, to],
    ), 3_000, [...Object.values(calls), followers('1')]);
  });
  after(() => t.close());

  it('completes, fails and releases a delivery by its id', async () => {
    const instanceOf = (rows: unknown[]) => assert.deepEqual(rows, [{ instance: 'ins_a' }]);
    const reads = [
      await measure(calls.delivered!, instanceOf),
      await measure(calls.released!, (rows) => assert.deepEqual(rows, [])),
      await measure(calls.failed!, instanceOf),
    ];
    // The id's index entry leads to the seq, then the row: a couple of fetches each, not the 2,000 live deliveries.
    for (const read of reads) assert.ok(read <= 3, `${reads.join(', ')} deliveries fetched for one delivery each`);
  });

  it('finds the lanes of live deliveries by their ids', async () => {
    const read = await measure(calls.lanes!, (rows) => assert.deepEqual(
      (rows as { url: string }[]).map((row) => row.url).sort(), ['u0', 'u1'], // d6 is dead, nope is unknown
    ));
    assert.ok(read <= 4, `${read} deliveries fetched for 4 ids`);
  });

  it('reads the followers of a head along its lane, not the queue', async () => {
    const head = (await admin.query<{ seq: string }>("SELECT seq FROM deliveries WHERE id = 'd2'")).rows[0]!.seq;
    const read = await measure(followers(head), (rows) => assert.deepEqual(
      (rows as { id: string }[]).map((row) => row.id), ['d4', 'd8', 'd10'], // d6 is dead
    ));
    assert.ok(read <= 6, `${read} deliveries fetched for a head and 3 followers`);
  });
});
