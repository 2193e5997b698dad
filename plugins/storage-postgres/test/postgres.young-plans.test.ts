import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { LOOKUP_SQL } from '../src/key-lookups.js';
import { DELETE_MESSAGES, LIST_BY_CHAT, PURGE_MESSAGES, SET_STATUSES } from '../src/repositories/messages.pg.js';
import { AUTH_STATE_DELETE, AUTH_STATE_GET } from '../src/repositories/auth-state.pg.js';
import { openTestStorage, postgresUrlOrSkip, type StorageUnderTest } from './pg-env.js';
import { planYoungThenGrow, prepared, rowsFetched } from './young-plans.js';

/**
 * What the statements do must not depend on the statistics of the table they were first planned on: each is
 * planned on a young table (young-plans.ts), which then grows, and the rows it fetches are counted — a probe
 * per key, never the instance's history.
 */
describe('@parley/storage-postgres plans made on a young table', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: plans made on a young table');
  if (!serverUrl) return;
  let t: StorageUnderTest;
  let admin: pg.Client;

  const run = (ids: string[]) => prepared('set_statuses', SET_STATUSES,
    ['ins_a', ids, ids.map(() => 'SERVER_ACK'), ids.map(() => 1), ids.map(() => false)]);
  const deleteMessages = (ids: string[]) => prepared('delete_messages', DELETE_MESSAGES, ['ins_a', ids]);
  const purge = (before: number) => prepared('purge_messages', PURGE_MESSAGES, [before, 10]);
  const page = (offset: number) => prepared('chat_page', LIST_BY_CHAT, ['ins_a', 'c', 20, offset]);
  const lookUp = (ids: string[]) => prepared('lookups', LOOKUP_SQL, [ids.map(() => 0), ids.map(() => 'ins_a'), ids]);
  const getAuth = (ids: string[]) => prepared('auth_get', AUTH_STATE_GET, ['ins_a', 'keys', ids]);
  const deleteAuth = (ids: string[]) => prepared('auth_delete', AUTH_STATE_DELETE, ['ins_a', ids.map(() => 'keys'), ids]);

  before(async () => {
    t = await openTestStorage(serverUrl, 'young', { schema: 'young' });
    ({ admin } = t);
    await admin.query('SET search_path TO young');
    await planYoungThenGrow(admin, 'messages', (from, to) => admin.query(
      "INSERT INTO messages (instance, id, chat, timestamp, status, record) SELECT 'ins_a', 'm' || g, 'c', g, 'PENDING', repeat('x', 300) FROM generate_series($1::int, $2::int) AS g",
      [from, to],
    ), 3_000, [run(['m1']), deleteMessages(['m1']), purge(2), page(0), lookUp(['m1'])]);
    await planYoungThenGrow(admin, 'auth_state', (from, to) => admin.query(
      "INSERT INTO auth_state (instance, category, id, value) SELECT 'ins_a', 'keys', 'k' || g, 'v' || g FROM generate_series($1::int, $2::int) AS g",
      [from, to],
    ), 3_000, [getAuth(['k1']), deleteAuth(['k1'])]);
  });
  after(() => t.close());

  it('applies a run of receipts by its messages\' keys, not by scanning the instance\'s history', async () => {
    const ids = ['m2', 'm3', 'm4', 'm5', 'nope'];
    const read = await rowsFetched(admin, 'young', 'messages', run(ids), async (rows) => {
      assert.deepEqual(rows.map((row) => (row as { id: string }).id).sort(), ['m2', 'm3', 'm4', 'm5']);
      assert.equal((await admin.query("SELECT count(*)::int AS n FROM messages WHERE status = 'SERVER_ACK'")).rows[0].n, 4);
    });
    // A message found is fetched to be updated, then to be answered: a few per message, not the instance's 3,000.
    assert.ok(read <= 4 * ids.length, `${read} message rows fetched for ${ids.length} receipts`);
  });

  it('deletes messages by their keys', async () => {
    const ids = ['m2', 'm3', 'm2999', 'nope'];
    const read = await rowsFetched(admin, 'young', 'messages', deleteMessages(ids), async (rows) => {
      assert.deepEqual(rows, [{ n: 3 }]);
      assert.equal((await admin.query("SELECT count(*)::int AS n FROM messages WHERE instance = 'ins_a'")).rows[0].n, 2_997);
    });
    assert.ok(read <= ids.length, `${read} message rows fetched to delete ${ids.length} ids`);
  });

  it('purges the oldest messages along their time, not the table', async () => {
    const read = await rowsFetched(admin, 'young', 'messages', purge(4), async () => {
      assert.deepEqual((await admin.query("SELECT min(timestamp)::int AS t, count(*)::int AS n FROM messages")).rows, [{ t: 4, n: 2_997 }]);
    });
    // Each old message fetched to be chosen, then to be deleted.
    assert.ok(read <= 2 * 3 + 2, `${read} message rows fetched to purge 3`);
  });

  it('reads a chat\'s page and messages by key as ranges and probes of their indexes (hot statements, kept so)', async () => {
    const pageRead = await rowsFetched(admin, 'young', 'messages', page(40), (rows) => {
      assert.equal(rows.length, 20);
      assert.deepEqual(rows[0], { total: '3000', record: 'x'.repeat(300), status: 'PENDING' });
    });
    // The page and the offset before it, newest first along messages_by_chat: not the chat's 3,000.
    assert.ok(pageRead <= 60, `${pageRead} message rows fetched for a page of 20 at offset 40`);
    const ids = ['m5', 'm2999', 'nope'];
    const lookupRead = await rowsFetched(admin, 'young', 'messages', lookUp(ids), (rows) => assert.equal(rows.length, 2));
    assert.ok(lookupRead <= ids.length, `${lookupRead} message rows fetched for ${ids.length} keys`);
  });

  it('reads and deletes auth state entries by their whole key, not the instance\'s every entry of the category', async () => {
    const ids = ['k2', 'k3', 'k2999', 'nope'];
    const read = await rowsFetched(admin, 'young', 'auth_state', getAuth(ids), (rows) => {
      assert.deepEqual(rows.map((row) => (row as { id: string; value: string }).value).sort(), ['v2', 'v2999', 'v3']);
    });
    assert.ok(read <= ids.length, `${read} auth state rows fetched for ${ids.length} ids`);
    const deleted = await rowsFetched(admin, 'young', 'auth_state', deleteAuth(ids), async () => {
      assert.equal((await admin.query("SELECT count(*)::int AS n FROM auth_state WHERE instance = 'ins_a'")).rows[0].n, 2_997);
    });
    // Each entry found by its key, then fetched by its address to be deleted.
    assert.ok(deleted <= 2 * ids.length, `${deleted} auth state rows fetched to delete ${ids.length} ids`);
  });
});
