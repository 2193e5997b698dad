/**
 * bench/storage/postgres-history: does a large history slow PostgreSQL storage down? The latency of a
 * send's message write (upsert, then a status change) and of a chat's first page (20 newest and the total),
 * median and p95 over BENCH_HISTORY_OPS (300) of each, on an empty database and again after
 * BENCH_HISTORY_ROWS (1,000,000) messages are stored (one instance, 1,000 chats); then the EXPLAIN
 * (ANALYZE, BUFFERS) of both queries on the full table. Issue 29 asks for at most 1.5x the empty figures.
 * Run: `npm run build && node bench/dist/storage/postgres-history.bench.js` (DATABASE_URL, default the local
 * server; a database of its own, dropped at the end).
 */
import pg from 'pg';
import { newMessageId, type MessageRecord } from '@parley/core';
import { PostgresStorage } from '@parley/storage-postgres';
import { createTestDatabase } from '@parley/storage-postgres/testing';
import { machine, percentile, table } from '../support/measure.js';

const OPS = Number(process.env.BENCH_HISTORY_OPS ?? 300);
const ROWS = Number(process.env.BENCH_HISTORY_ROWS ?? 1_000_000);
const INSTANCE = 'ins_history';
const CHATS = 1_000;
const chatOf = (i: number) => `55119${String(i % CHATS).padStart(8, '0')}@s.whatsapp.net`;
const record = (chat: string, id: string, timestamp: number): MessageRecord => ({
  key: { remoteJid: chat, fromMe: true, id }, message: { extendedTextMessage: { text: `a message of about the usual length, number ${id}` } },
  messageTimestamp: String(timestamp), status: 'PENDING',
});

async function latencies(storage: PostgresStorage, from: number): Promise<{ write: number[]; page: number[] }> {
  const write: number[] = [];
  const page: number[] = [];
  for (let i = 0; i < OPS; i++) {
    const chat = chatOf(i * 7);
    const id = newMessageId();
    let t = performance.now();
    await storage.messages.upsert(INSTANCE, record(chat, id, from + i));
    await storage.messages.setStatus(INSTANCE, id, 'SERVER_ACK');
    write.push(performance.now() - t);
    t = performance.now();
    await storage.messages.listByChat(INSTANCE, chat, { page: 1, limit: 20 });
    page.push(performance.now() - t);
  }
  return { write, page };
}

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = await createTestDatabase(serverUrl, 'history');
const storage = new PostgresStorage({ url: database.url });
const admin = new pg.Client({ connectionString: database.url });
try {
  await storage.init();
  await admin.connect();
  const empty = await latencies(storage, 1_600_000_000);
  const t = performance.now();
  const sample = JSON.stringify(record('CHAT', 'ID', 0));
  // One statement: the counting triggers run once for it (statement-level), as for any bulk import.
  await admin.query(
    `INSERT INTO messages (instance, id, chat, timestamp, status, record)
     SELECT $1, 'hist' || g, '55119' || lpad((g % ${CHATS})::text, 8, '0') || '@s.whatsapp.net', 1500000000 + g, 'READ', $2
     FROM generate_series(1, $3::int) AS g`,
    [INSTANCE, sample, ROWS],
  );
  await admin.query('ANALYZE messages');
  console.error(`stored ${ROWS} messages in ${Math.round((performance.now() - t) / 1000)} s`);
  const full = await latencies(storage, 1_700_000_000);
  const ms = (values: number[], p: number) => Math.round(percentile(values, p) * 100) / 100;
  const ratio = (a: number[], b: number[]) => `${(percentile(a, 50) / percentile(b, 50)).toFixed(2)}x`;
  console.log(`\n### bench/storage/postgres-history — ${machine()}, ${OPS} operations each\n`);
  console.log(table(['operation', 'empty p50 ms', 'empty p95 ms', `${ROWS.toLocaleString('en')} stored p50 ms`, `${ROWS.toLocaleString('en')} stored p95 ms`, 'p50 ratio'], [
    ['message write (upsert + status)', ms(empty.write, 50), ms(empty.write, 95), ms(full.write, 50), ms(full.write, 95), ratio(full.write, empty.write)],
    ['chat page (20 newest + total)', ms(empty.page, 50), ms(empty.page, 95), ms(full.page, 50), ms(full.page, 95), ratio(full.page, empty.page)],
  ]));
  for (const [what, sql, params] of [
    ['page', 'SELECT record, status FROM messages WHERE instance = $1 AND chat = $2 ORDER BY timestamp DESC, seq DESC LIMIT 20 OFFSET 0', [INSTANCE, chatOf(3)]],
    ['total', 'SELECT n FROM chat_message_counts WHERE instance = $1 AND chat = $2', [INSTANCE, chatOf(3)]],
    ['status', "UPDATE messages SET status = 'READ' WHERE instance = $1 AND id = $2", [INSTANCE, 'hist500000']],
  ] as const) {
    const plan = await admin.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, [...params]);
    console.log(`\n${what}:\n${plan.rows.map((row: Record<string, string>) => `    ${row['QUERY PLAN']}`).join('\n')}`);
  }
} finally {
  await admin.end().catch(() => undefined);
  await storage.close();
  await database.drop();
}
