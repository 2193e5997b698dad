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
  it('the page, total and write paths of a chat seek indexes: no scan, no COUNT, no temporary b-tree', () => {
    const raw = new Database(':memory:');
    for (const migration of MIGRATIONS) raw.exec(migration);
    const plan = (sql: string) => (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join(' | ');
    const blocks = "SELECT timestamp, seq, start, n FROM message_blocks WHERE instance = 'i' AND chat = 'c'";
    const paths: [string, RegExp][] = [
      [`${blocks} ORDER BY start DESC LIMIT 1`, /^SEARCH message_blocks USING INDEX message_blocks_by_start \(instance=\? AND chat=\?\)$/],
      [`${blocks} AND start <= 7 ORDER BY start DESC LIMIT 1`, /^SEARCH message_blocks USING INDEX message_blocks_by_start \(instance=\? AND chat=\? AND start<\?\)$/],
      // Within one block: the OFFSET steps fewer than twice the block size entries of a covering index.
      ["SELECT timestamp, seq FROM messages WHERE instance = 'i' AND chat = 'c' AND (timestamp, seq) >= (1, 2) ORDER BY timestamp, seq LIMIT 1 OFFSET 9",
        /^SEARCH messages USING COVERING INDEX messages_by_chat \(instance=\? AND chat=\? AND timestamp>\?\)$/],
      ["SELECT record, status FROM messages WHERE instance = 'i' AND chat = 'c' ORDER BY timestamp DESC, seq DESC LIMIT 20",
        /^SEARCH messages USING INDEX messages_by_chat \(instance=\? AND chat=\?\)$/],
      ["SELECT record, status FROM messages WHERE instance = 'i' AND chat = 'c' AND (timestamp, seq) <= (1, 2) ORDER BY timestamp DESC, seq DESC LIMIT 20",
        /^SEARCH messages USING INDEX messages_by_chat \(instance=\? AND chat=\? AND timestamp<\?\)$/],
      [`SELECT timestamp, seq, start, n, (SELECT min(start) FROM message_blocks WHERE instance = 'i' AND chat = 'c') AS first,
         (SELECT max(start) FROM message_blocks WHERE instance = 'i' AND chat = 'c') AS last
        FROM message_blocks WHERE instance = 'i' AND chat = 'c' AND (timestamp, seq) <= (1, 2) ORDER BY timestamp DESC, seq DESC LIMIT 1`,
        new RegExp(['^SEARCH message_blocks USING PRIMARY KEY \\(instance=\\? AND chat=\\? AND \\(timestamp,seq\\)<\\(\\?,\\?\\)\\)',
          ...Array(2).fill('SCALAR SUBQUERY \\d+ \\| SEARCH message_blocks USING COVERING INDEX message_blocks_by_start \\(instance=\\? AND chat=\\?\\)')].join(' \\| ') + '$')],
      ["UPDATE message_blocks SET n = n + iif(start = 3, 1, 0), start = start + iif(start > 3, 1, 0) WHERE instance = +'i' AND chat = +'c' AND start >= +3",
        /^SEARCH message_blocks USING INDEX message_blocks_by_start \(instance=\? AND chat=\? AND start>\?\)$/],
      // A message newer than the chat's last block joins it: one update of that block, found by two key seeks.
      [`UPDATE message_blocks SET n = n + 1 WHERE instance = +'i' AND chat = +'c' AND (timestamp, seq) <= (+5, +6)
         AND (timestamp, seq) = (SELECT timestamp, seq FROM message_blocks WHERE instance = +'i' AND chat = +'c' ORDER BY timestamp DESC, seq DESC LIMIT 1)`,
        /^SEARCH message_blocks USING PRIMARY KEY \(instance=\? AND chat=\? AND timestamp=\? AND seq=\?\) \| SCALAR SUBQUERY \d+ \| SEARCH message_blocks USING PRIMARY KEY \(instance=\? AND chat=\?\)$/],
      ["SELECT n FROM dead_letter_counts WHERE instance = 'i'", /^SEARCH dead_letter_counts USING PRIMARY KEY \(instance=\?\)$/],
    ];
    try {
      for (const [sql, expected] of paths) {
        assert.match(plan(sql), expected, sql);
        assert.doesNotMatch(plan(sql), /SCAN|TEMP B-TREE/, sql);
      }
    } finally {
      raw.close();
    }
  });

  it('migration 7 cuts the messages of an existing database into blocks, which the writes after it keep', async () => {
    const raw = fileAtVersion('migrated', 6);
    const insert = raw.prepare('INSERT INTO messages (instance, id, chat, timestamp, record) VALUES (?, ?, ?, ?, ?)');
    const rows: [string, string, string, number][] = [
      ['ins_a', 'M1', 'c1', 30], ['ins_a', 'M2', 'c1', 10], ['ins_a', 'M3', 'c2', 5], ['ins_a', 'M4', 'c1', 30],
      ['ins_b', 'M1', 'c1', 1], ['ins_a', 'M5', 'c1', 20],
      // 600 messages in one chat, written out of time order: three blocks of 256, 256 and 88.
      ...Array.from({ length: 600 }, (_, i): [string, string, string, number] => ['ins_a', `B${i}`, 'big', (i * 7) % 600]),
    ];
    raw.transaction(() => {
      for (const [instance, id, chat, timestamp] of rows) {
        insert.run(instance, id, chat, timestamp, JSON.stringify({ key: { id, remoteJid: chat, fromMe: true }, messageTimestamp: String(timestamp), status: 'SERVER_ACK' }));
      }
    })();
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
    // (i * 7) % 600 is a permutation of 0…599: the message of timestamp t is B(t × 343 % 600), 343 being 7's inverse.
    const byTime = (t: number) => `B${(t * 343) % 600}`;
    assert.deepEqual(await ids('ins_a', 'big', 1, 3), [600, [599, 598, 597].map(byTime)]);
    assert.deepEqual(await ids('ins_a', 'big', 115, 3), [600, [257, 256, 255].map(byTime)], 'a page across two blocks');
    assert.deepEqual(await ids('ins_a', 'big', 200, 3), [600, [2, 1, 0].map(byTime)]);
    // The migrated blocks are ones writes continue: a message in the middle, then a delete.
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
