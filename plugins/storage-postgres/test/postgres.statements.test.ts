import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PgDatabase } from '../src/pg-database.js';
import { PgMessageRepository } from '../src/repositories/messages.pg.js';
import { PgOutboundQueue } from '../src/repositories/outbound-queue.pg.js';
import { createTestDatabase, postgresUrlOrSkip, type TestDatabase } from './pg-env.js';

describe('@parley/storage-postgres statements on one connection', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: prepared statements and per-transaction commit settings');
  if (!serverUrl) return;
  let database: TestDatabase;
  let db: PgDatabase;
  before(async () => {
    database = await createTestDatabase(serverUrl, 'statements');
    // One connection: every statement below, and the catalog reads of the assertions, run on the same session.
    db = new PgDatabase({ url: database.url, schema: 'statements', poolSize: 1, synchronousCommit: 'on', timeoutMs: 5_000 });
    await db.open();
  });
  after(async () => {
    await db.close();
    await database.drop();
  });

  const sessionStatements = async (text: string) =>
    (await db.all<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE statement = '${text.replace(/'/g, "''")}'`)).map((row) => row.name);

  it('prepares a statement with parameters once per connection and reuses it, in and out of transactions', async () => {
    const text = 'SELECT $1::int + 1 AS n';
    assert.equal((await db.get<{ n: number }>(text, [1]))?.n, 2);
    assert.equal((await db.get<{ n: number }>(text, [2]))?.n, 3);
    assert.equal(await db.transaction(async (tx) => (await tx.get<{ n: number }>(text, [3]))?.n), 4);
    const names = await sessionStatements(text);
    assert.equal(names.length, 1, 'one named statement on the connection');
    assert.match(names[0]!, /^parley_\d+$/);
  });

  it('flushes, with synchronousCommit off, the WAL of every commit made before the call', async () => {
    const relaxed = new PgDatabase({ url: database.url, schema: 'statements', poolSize: 2, synchronousCommit: 'off', timeoutMs: 5_000 });
    await relaxed.open();
    try {
      await relaxed.run("INSERT INTO state (namespace, id, value) VALUES ('flush', $1, 'x')", [String(Date.now())]);
      const written = (await relaxed.get<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn'))!.lsn;
      await relaxed.flush();
      const flushed = await relaxed.get<{ done: boolean }>('SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS done', [written]);
      assert.equal(flushed?.done, true);
    } finally {
      await relaxed.close();
    }
  });

  it('shares WAL barriers: flushes called while one is in flight share the next one', async () => {
    const pool = (db as unknown as { pool: { on(e: string, f: () => void): void; off(e: string, f: () => void): void } }).pool;
    let statements = 0;
    const count = () => void statements++;
    pool.on('acquire', count);
    const flushes: Promise<void>[] = [];
    try {
      for (let i = 0; i < 50; i++) {
        // A commit that did not wait for its flush, then a flush: microtasks only in between, so the
        // first barrier cannot end before the last flush is called.
        db.committedWithoutFlush();
        flushes.push(db.flush());
        for (let tick = 0; tick < 50; tick++) await null;
      }
      await Promise.all(flushes);
    } finally {
      pool.off('acquire', count);
    }
    assert.equal(statements, 2, 'the first barrier, and one for every flush called while it ran');
  });

  it('completes a sent entry without changing the session\'s synchronous_commit, with and without a stored record', async () => {
    const queue = new PgOutboundQueue(db);
    const messages = new PgMessageRepository(db);
    for (const id of ['recorded', 'unrecorded']) {
      assert.equal(await queue.enqueue({ id, instance: 'ins', lane: 'sandbox:1', dueAt: 1, createdAt: 1, payload: '{}' }, 10), 'queued');
    }
    await messages.upsert('ins', {
      key: { remoteJid: '1@s.whatsapp.net', fromMe: true, id: 'recorded' }, message: { conversation: 'x' }, messageTimestamp: '1', status: 'SERVER_ACK',
    });
    await queue.complete('ins', 'recorded');
    await queue.complete('ins', 'unrecorded');
    assert.equal(await queue.get('ins', 'recorded'), null);
    assert.equal(await queue.get('ins', 'unrecorded'), null);
    assert.equal(await queue.count('ins'), 0);
    assert.equal((await db.get<{ synchronous_commit: string }>('SHOW synchronous_commit'))?.synchronous_commit, 'on');
  });
});
