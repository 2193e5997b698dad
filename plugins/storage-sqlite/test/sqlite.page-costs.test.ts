import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteStorage } from '../src/index.js';
import { MIGRATIONS } from '../src/migrations.js';

const root = mkdtempSync(join(tmpdir(), 'parley-sqlite-pages-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A new file at an older schema `version`. */
function fileAtVersion(name: string, version: number): Database.Database {
  mkdirSync(join(root, name), { recursive: true });
  const raw = new Database(join(root, name, 'parley.db'));
  for (const migration of MIGRATIONS.slice(0, version)) raw.exec(migration);
  raw.pragma(`user_version = ${version}`);
  return raw;
}

async function opened(name: string): Promise<SqliteStorage> {
  const storage = new SqliteStorage({ file: join(root, name, 'parley.db') });
  await storage.init();
  return storage;
}

/** Pages whose cost is the page's (issue 26): chat messages (migration 7) and dead-letter totals (migration 8). */
describe('SqliteStorage page costs', () => {
  it('the page, total and write paths of a chat seek indexes: no scan, no OFFSET, no COUNT, no temporary b-tree', () => {
    const raw = new Database(':memory:');
    for (const migration of MIGRATIONS) raw.exec(migration);
    const plan = (sql: string) => (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join(' | ');
    const paths = {
      page: "SELECT record, status FROM messages WHERE instance = 'i' AND chat = 'c' AND ord <= 9 AND ord > 4 ORDER BY ord DESC",
      total: "SELECT n, lo FROM message_chats WHERE instance = 'i' AND chat = 'c'",
      neighbour: "SELECT ord FROM messages WHERE instance = 'i' AND chat = 'c' AND (timestamp, seq) > (1, 2) AND seq <> 2 ORDER BY timestamp, seq LIMIT 1",
      shift: "UPDATE messages SET ord = ord + 1 WHERE instance = 'i' AND chat = 'c' AND ord >= 3",
      deadTotal: "SELECT n FROM dead_letter_counts WHERE instance = 'i'",
    };
    try {
      assert.match(plan(paths.page), /^SEARCH messages USING INDEX messages_by_ord \(instance=\? AND chat=\? AND ord>\? AND ord<\?\)$/);
      assert.match(plan(paths.total), /^SEARCH message_chats USING PRIMARY KEY \(instance=\? AND chat=\?\)$/);
      assert.match(plan(paths.neighbour), /^SEARCH messages USING INDEX messages_by_chat \(instance=\? AND chat=\? AND timestamp>\?\)$/);
      assert.match(plan(paths.shift), /^SEARCH messages USING INDEX messages_by_ord \(instance=\? AND chat=\? AND ord>\?\)$/);
      assert.match(plan(paths.deadTotal), /^SEARCH dead_letter_counts USING PRIMARY KEY \(instance=\?\)$/);
      for (const sql of Object.values(paths)) assert.doesNotMatch(plan(sql), /SCAN|TEMP B-TREE/);
    } finally {
      raw.close();
    }
  });

  it('migration 7 numbers the messages of an existing database and counts its chats', async () => {
    const raw = fileAtVersion('migrated', 6);
    const insert = raw.prepare('INSERT INTO messages (instance, id, chat, timestamp, record) VALUES (?, ?, ?, ?, ?)');
    const rows: [string, string, string, number][] = [
      ['ins_a', 'M1', 'c1', 30], ['ins_a', 'M2', 'c1', 10], ['ins_a', 'M3', 'c2', 5], ['ins_a', 'M4', 'c1', 30],
      ['ins_b', 'M1', 'c1', 1], ['ins_a', 'M5', 'c1', 20],
    ];
    for (const [instance, id, chat, timestamp] of rows) {
      insert.run(instance, id, chat, timestamp, JSON.stringify({ key: { id, remoteJid: chat, fromMe: true }, messageTimestamp: String(timestamp), status: 'SERVER_ACK' }));
    }
    raw.close();
    const storage = await opened('migrated');
    const ids = async (instance: string, chat: string, page: number, limit: number) => {
      const answer = await storage.messages.listByChat(instance, chat, { page, limit });
      return [answer.total, answer.items.map((record) => record.key.id)];
    };
    assert.deepEqual(await ids('ins_a', 'c1', 1, 2), [4, ['M4', 'M1']]);
    assert.deepEqual(await ids('ins_a', 'c1', 2, 2), [4, ['M5', 'M2']]);
    assert.deepEqual(await ids('ins_a', 'c2', 1, 2), [1, ['M3']]);
    assert.deepEqual(await ids('ins_b', 'c1', 1, 2), [1, ['M1']]);
    // The migrated numbering is one writes continue: a message in the middle, then a delete.
    await storage.messages.upsert('ins_a', { key: { id: 'M6', remoteJid: 'c1', fromMe: true }, message: {}, messageTimestamp: '25', status: 'PENDING' });
    assert.equal(await storage.messages.delete('ins_a', ['M2']), 1);
    assert.deepEqual(await ids('ins_a', 'c1', 1, 10), [4, ['M4', 'M1', 'M6', 'M5']]);
    await storage.close();
  });
});

describe('SqliteStorage dead-letter totals', () => {
  it('migration 8 counts the dead letters of an existing database, and the writes after it keep the count', async () => {
    const raw = fileAtVersion('dead', 7);
    const insert = raw.prepare(`INSERT INTO deliveries (id, instance, url, format, event_id, event_type, body, created_at, attempts, next_attempt_at, dead_at)
      VALUES (?, ?, 'http://127.0.0.1:9/hook', 'native', 'e', 'messages.upsert', '{}', 1, 1, 1, ?)`);
    for (const [id, instance, deadAt] of [['D1', 'ins_a', 5], ['D2', 'ins_a', 6], ['D3', 'ins_a', null], ['D4', 'ins_b', 7]] as const) insert.run(id, instance, deadAt);
    raw.close();
    const storage = await opened('dead');
    const total = async (instance: string) => (await storage.deliveries.deadLetters(instance, { limit: 1, offset: 0 })).total;
    assert.deepEqual([await total('ins_a'), await total('ins_b'), await total('ins_c')], [2, 1, 0]);
    await storage.deliveries.fail('D3', { nextAttemptAt: null, error: 'gone' });
    assert.equal(await storage.deliveries.redeliver('ins_b'), 1);
    assert.deepEqual([await total('ins_a'), await total('ins_b')], [3, 0]);
    await storage.close();
  });
});
