import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ServiceUnavailableError, type MessageRecord } from '@parley/core';
import { PostgresStorage } from '../src/index.js';
import { openTestStorage, postgresUrlOrSkip, type StorageUnderTest } from './pg-env.js';

function message(id: string, timestamp = 1_700_000_000): MessageRecord {
  return { key: { remoteJid: '5511988887777@s.whatsapp.net', fromMe: true, id }, message: { conversation: id }, messageTimestamp: String(timestamp), status: 'PENDING' };
}

/** Polls `probe` (bounded) until it answers true. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('@parley/storage-postgres group commit', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: group commit');
  if (!serverUrl) return;
  let t: StorageUnderTest;
  let admin: pg.Client;
  let storage: PostgresStorage;
  let discards: number[];
  const rows = async (sql: string, params: unknown[] = []) => (await admin.query(sql, params)).rows as Record<string, unknown>[];

  before(async () => {
    t = await openTestStorage(serverUrl, 'group', { schema: 'grouped', groupCommit: true });
    ({ storage, admin, discards } = t);
  });
  after(() => t.close());

  it('commits the writes of one turn in one transaction, seen by reads before the commit and by others after the flush', async () => {
    const writes = Promise.all([
      storage.messages.upsert('ins_a', message('m1')),
      storage.messages.upsert('ins_a', message('m2')),
      storage.chats.upsert('ins_a', { id: '5511988887777@s.whatsapp.net', name: 'Ana' }),
      storage.events.append([{ id: '01JTEST0000000000000000001', instance: 'ins_a', type: 'message', at: 1, event: '{}' }]),
      storage.state.put('plugin', 'doc', { n: 1 }),
    ]);
    await writes;
    // Resolved but not committed yet: this process reads them, another connection does not.
    assert.equal((await storage.messages.get('ins_a', 'm1'))?.key.id, 'm1');
    assert.deepEqual(await storage.state.get('plugin', 'doc'), { n: 1 });
    await storage.flush();
    const xmins = await rows(`SELECT xmin::text AS x FROM grouped.messages UNION ALL SELECT xmin::text FROM grouped.chats
      UNION ALL SELECT xmin::text FROM grouped.events UNION ALL SELECT xmin::text FROM grouped.state WHERE namespace = 'plugin'`);
    assert.equal(xmins.length, 5);
    assert.equal(new Set(xmins.map((row) => row.x)).size, 1, 'one transaction for the turn');
    assert.deepEqual(discards, []);
  });

  it('answers a statement that fails for itself with its error and commits the rest of its turn', async () => {
    const good = storage.messages.upsert('ins_b', message('ok1'));
    // jsonb holds no NUL character: PostgreSQL refuses the statement and aborts the transaction.
    const bad = storage.contacts.upsert('ins_b', { id: '5511911112222@s.whatsapp.net', name: 'a\u0000b' });
    const later = storage.messages.upsert('ins_b', message('ok2'));
    await good;
    await assert.rejects(bad, (err: Error) => !(err instanceof ServiceUnavailableError) && /Unicode escape/.test(err.message));
    await later;
    await storage.flush();
    const ids = await rows("SELECT id FROM grouped.messages WHERE instance = 'ins_b' ORDER BY id");
    assert.deepEqual(ids.map((row) => row.id), ['ok1', 'ok2']);
    assert.deepEqual(discards, []);
  });

  it('does not fail a commit whose answer came while the event loop was blocked past the time-out', async () => {
    const stalled = new PostgresStorage({ url: t.url, schema: 'stalled', poolSize: 2, commandTimeoutMs: 1_000, groupCommit: true });
    await stalled.init();
    try {
      let discarded = 0;
      stalled.onDiscard(() => discarded++);
      await stalled.messages.upsert('ins_s', message('s1'));
      const flushed = stalled.flush().then(() => 'committed', (err: Error) => err.message);
      // The turn's COMMIT goes out on the next turns; then the process is blocked for longer than the bound.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      const until = Date.now() + 1_500;
      while (Date.now() < until) { /* a synchronous stall, as a key generation on a loaded machine */ }
      assert.equal(await flushed, 'committed');
      assert.equal(discarded, 0);
    } finally {
      await stalled.close();
    }
  });

  it('discards the batch when its connection is lost: listeners told, flush 503, nothing half-written, then recovers', async () => {
    await storage.messages.upsert('ins_c', message('locked'));
    await storage.flush();
    // Another session holds the row, so the batch's update of it waits, with the batch's first write done.
    await admin.query('BEGIN');
    await admin.query("SELECT 1 FROM grouped.messages WHERE instance = 'ins_c' AND id = 'locked' FOR UPDATE");
    const first = storage.messages.upsert('ins_c', message('lost'));
    // Outcomes taken at once: both reject together once the connection is gone.
    const waiting = storage.messages.setStatus('ins_c', 'locked', 'DELIVERY_ACK').then(() => 'resolved', (err: unknown) => err);
    const flushed = storage.flush().then(() => 'resolved', (err: unknown) => err);
    await first;
    let writer: number | undefined;
    await until(async () => {
      writer = (await rows("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))[0]?.pid as number | undefined;
      return writer !== undefined;
    }, 'the batch waiting on the row lock');
    await admin.query('SELECT pg_terminate_backend($1)', [writer]);
    assert.ok(await waiting instanceof ServiceUnavailableError);
    assert.ok(await flushed instanceof ServiceUnavailableError);
    assert.equal(discards.length, 1);
    await admin.query('ROLLBACK');
    assert.deepEqual(await rows("SELECT id FROM grouped.messages WHERE instance = 'ins_c' AND id = 'lost'"), []);
    // The next write gets a new connection, without a restart.
    await storage.messages.upsert('ins_c', message('after'));
    await storage.flush();
    assert.equal((await rows("SELECT id FROM grouped.messages WHERE instance = 'ins_c' AND id = 'after'")).length, 1);
    assert.equal(discards.length, 1);
  });
});
