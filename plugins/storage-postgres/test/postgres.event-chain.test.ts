import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { MESSAGE_STATUS_RANK, setStatuses, statusAdvances, type MessageRecord, type MessageStatus } from '@parley/core';
import { PostgresStorage } from '../src/index.js';
import { collapseStatuses } from '../src/repositories/messages.pg.js';
import { openTestStorage, postgresUrlOrSkip, statementsOf, type StorageUnderTest } from './pg-env.js';

const STATUSES = Object.keys(MESSAGE_STATUS_RANK) as MessageStatus[];

/** Every sequence of up to `length` statuses. */
function sequences(length: number): MessageStatus[][] {
  if (length === 0) return [[]];
  const shorter = sequences(length - 1);
  return [...shorter, ...shorter.filter((s) => s.length === length - 1).flatMap((s) => STATUSES.map((status) => [...s, status]))];
}

describe('@parley/storage-postgres collapseStatuses', () => {
  it('gives, from every stored status, what applying each status in order as setStatus does gives', () => {
    for (const sequence of sequences(4).filter((s) => s.length > 0)) {
      const { status, force } = collapseStatuses(sequence);
      for (const stored of STATUSES) {
        const oneByOne = sequence.reduce((current, next) => (statusAdvances(current, next) ? next : current), stored);
        const collapsed = force || statusAdvances(stored, status) ? status : stored;
        assert.equal(collapsed, oneByOne, `${stored} then ${sequence.join(', ')}`);
      }
    }
  });
});

function message(id: string): MessageRecord {
  return { key: { remoteJid: '5511988887777@s.whatsapp.net', fromMe: true, id }, message: { conversation: id }, messageTimestamp: '1700000000', status: 'PENDING' };
}

/**
 * What the server does on an instance's event chain, in fewer round trips: the statements a run of
 * receipts costs, and event-log appends that do not hold the chain (the chain handles an instance's
 * events one run after another, so each round trip there bounds the instance's send rate).
 */
describe('@parley/storage-postgres on the event chain', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: statements on the event chain');
  if (!serverUrl) return;
  let t: StorageUnderTest;
  let admin: pg.Client;
  let storage: PostgresStorage;
  let discards: number[];

  before(async () => {
    t = await openTestStorage(serverUrl, 'chain', { schema: 'chain' });
    ({ storage, admin, discards } = t);
  });
  after(() => t.close());

  it('applies a run of receipts in one statement', async () => {
    await storage.messages.upsert('ins_s', message('r1'));
    await storage.messages.upsert('ins_s', message('r2'));
    const statements = await statementsOf(storage, async () => {
      const found = await setStatuses(storage.messages, 'ins_s', [
        { id: 'r1', status: 'SERVER_ACK' }, { id: 'r2', status: 'SERVER_ACK' }, { id: 'r1', status: 'DELIVERY_ACK' }, { id: 'gone', status: 'READ' },
      ]);
      assert.deepEqual(found, [true, true, true, false]);
    });
    assert.equal(statements, 1, 'one connection checkout: one statement for the whole run');
    assert.equal((await storage.messages.get('ins_s', 'r1'))?.status, 'DELIVERY_ACK');
    assert.equal((await storage.messages.get('ins_s', 'r2'))?.status, 'SERVER_ACK');
  });

  it('answers an event-log append without waiting for its statement; flush waits for it, and reads see it', async () => {
    const entry = { id: '01JCHAIN000000000000000001', instance: 'ins_l', type: 'message', at: 1, event: '{"n":1}' };
    // Another transaction holds the entry's key: the append's INSERT waits for it on the server.
    await admin.query('BEGIN');
    await admin.query("INSERT INTO chain.events (id, instance, type, at, event) VALUES ($1, 'ins_l', 'message', 1, '{\"n\":0}')", [entry.id]);
    let appended = false;
    let flushed = false;
    const append = storage.events.append([entry]).then(() => (appended = true));
    const flush = append.then(() => storage.flush()).then(() => (flushed = true));
    const read = storage.events.read({ instance: 'ins_l', limit: 10 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(appended, true, 'the append answered while its statement waits on the server');
    assert.equal(flushed, false, 'flush waits for the statement');
    await admin.query('ROLLBACK');
    await flush;
    assert.deepEqual((await read).map((e) => e.id), [entry.id], 'a read started after the append sees it');
    assert.equal((await admin.query('SELECT event FROM chain.events WHERE id = $1', [entry.id])).rows[0]?.event, '{"n":1}');
  });

  it('commits the writes the server flushes without a disk flush each, on sessions of their own within poolSize; flush puts them on disk', async () => {
    const relaxed = (storage as unknown as { db: { relaxed: pg.Pool } }).db.relaxed;
    assert.equal((await relaxed.query('SHOW synchronous_commit')).rows[0]?.synchronous_commit, 'off');
    const ids = Array.from({ length: 20 }, (_, i) => `w${i}`);
    await Promise.all([
      ...ids.map((id) => storage.messages.upsert('ins_w', message(id))),
      ...ids.map((id) => storage.messages.get('ins_w', id)),
      ...ids.map((id) => storage.outbound.count(`ins_${id}`)),
    ]);
    // Visible to every session once the write resolved, flushed or not.
    assert.equal((await admin.query("SELECT count(*)::int AS n FROM chain.messages WHERE instance = 'ins_w'")).rows[0]?.n, 20);
    const written = (await admin.query('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn as string;
    await storage.flush();
    assert.equal((await admin.query('SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS done', [written])).rows[0]?.done, true);
    const sessions = (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'parley:chain'")).rows[0]?.n as number;
    assert.ok(sessions <= 4, `${sessions} connections for a poolSize of 4`);
  });

  it('completes a send in one statement, and an enqueue is on disk once flush resolves', async () => {
    const { pool } = (storage as unknown as { db: { pool: pg.Pool } }).db;
    assert.equal(await storage.outbound.enqueue({ id: 'c1', instance: 'ins_c', lane: 'sandbox:1', dueAt: 1, createdAt: 1, payload: '{}' }, 10), 'queued');
    assert.equal(await storage.outbound.enqueue({ id: 'c2', instance: 'ins_c', lane: 'sandbox:1', dueAt: 1, createdAt: 1, payload: '{}' }, 10), 'queued');
    const written = (await admin.query('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn as string;
    await storage.flush();
    assert.equal((await admin.query('SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS done', [written])).rows[0]?.done, true);
    // Every statement a checked-out connection runs during the completion.
    const statements: string[] = [];
    const watch = (client: pg.PoolClient) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const config = args[0] as string | { text: string };
        statements.push(typeof config === 'string' ? config : config.text);
        return query(...args);
      };
    };
    pool.on('acquire', watch);
    try {
      await storage.outbound.complete('ins_c', 'c1');
    } finally {
      pool.off('acquire', watch);
    }
    assert.equal(statements.length, 1, statements.join('\n'));
    assert.equal(await storage.outbound.get('ins_c', 'c1'), null);
    assert.equal(await storage.outbound.count('ins_c'), 1);
    const [next] = await storage.outbound.claim({ now: 2, limit: 10, leaseMs: 1_000 });
    assert.equal(next?.id, 'c2', 'the lane moved on to the next entry');
    await storage.outbound.complete('ins_c', 'c2');
    assert.equal((await admin.query("SELECT count(*)::int AS n FROM chain.outbound_lanes WHERE instance = 'ins_c'")).rows[0]?.n, 0, 'an empty lane is dropped');
    await storage.outbound.complete('ins_c', 'unknown');
    assert.equal(await storage.outbound.count('ins_c'), 0);
  });

  it('tells the discard listeners and fails the flush when an append behind fails, then flushes again', async () => {
    const before = discards.length;
    // PostgreSQL refuses the entry (its time is not an integer); the append has answered already.
    await storage.events.append([{ id: '01JCHAIN000000000000000002', instance: 'ins_l', type: 'message', at: 1.5 as number, event: '{}' }]);
    await assert.rejects(storage.flush());
    assert.equal(discards.length, before + 1, 'told once, before the flush rejected');
    await storage.flush();
  });
});
