/**
 * bench/storage/sizing: what one stored message costs on each back end — bytes on disk for SQLite and
 * PostgreSQL (the database's growth, indexes and the per-chat order included), and Redis memory
 * (`used_memory` growth of a private `redis-server`, so nothing else's keys count). N messages of a
 * typical size (a 60–120 character text with a push name, 50 chats) are written through each back end's
 * own `messages.upsert`, as the server stores received messages.
 * Run: `npm run build && node bench/dist/storage/sizing.bench.js` (BENCH_SIZING_N, default 20000;
 * DATABASE_URL, default the local PostgreSQL: a database of its own, dropped at the end).
 */
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import type { MessageRecord, Storage } from '@parley/core';
import { PostgresStorage } from '@parley/storage-postgres';
import { createTestDatabase } from '@parley/storage-postgres/testing';
import { RedisStorage } from '@parley/storage-redis';
import { PrivateRedis } from '@parley/storage-redis/testing';
import { freePort } from '@parley/testkit/host';
import { SqliteStorage } from '@parley/storage-sqlite';
import { machine, table } from '../support/measure.js';

const N = Number(process.env.BENCH_SIZING_N ?? 20_000);
const CHATS = 50;
const INSTANCE = 'ins_sizing';
const WORDS = 'bom dia tudo bem com você o pedido chegou amanhã obrigado pela entrega combinado até logo'.split(' ');

function record(i: number): MessageRecord {
  const text = Array.from({ length: 12 + (i % 10) }, (_, w) => WORDS[(i * 7 + w) % WORDS.length]).join(' ');
  return {
    key: { remoteJid: `55119${String(i % CHATS).padStart(8, '0')}@s.whatsapp.net`, fromMe: i % 3 === 0, id: `3EB0${i.toString(16).toUpperCase().padStart(18, '0')}` },
    message: { extendedTextMessage: { text } }, messageTimestamp: String(1_700_000_000 + i), status: i % 3 === 0 ? 'READ' : 'DELIVERY_ACK', pushName: 'Maria Souza',
  };
}

async function fill(storage: Storage): Promise<void> {
  for (let i = 0; i < N; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, N - i) }, (_, j) => storage.messages.upsert(INSTANCE, record(i + j))));
  }
  await storage.flush();
}

const fileBytes = (file: string) => [file, `${file}-wal`].reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);

async function sqlite(dir: string): Promise<number> {
  const sizeAfter = async (file: string, withData: boolean) => {
    const storage = new SqliteStorage({ file });
    await storage.init();
    if (withData) await fill(storage);
    await storage.close();
    return fileBytes(file);
  };
  return (await sizeAfter(join(dir, 'full.db'), true)) - (await sizeAfter(join(dir, 'empty.db'), false));
}

async function postgres(): Promise<number> {
  const database = await createTestDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'sizing');
  const storage = new PostgresStorage({ url: database.url });
  const admin = new pg.Client({ connectionString: database.url });
  try {
    await storage.init();
    await admin.connect();
    const size = async () => Number((await admin.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
    const before = await size();
    await fill(storage);
    await admin.query('CHECKPOINT');
    return (await size()) - before;
  } finally {
    await admin.end().catch(() => undefined);
    await storage.close();
    await database.drop();
  }
}

async function redis(dir: string): Promise<number> {
  const server = new PrivateRedis(await freePort(), dir);
  await server.start();
  const storage = new RedisStorage({ url: server.url, keyPrefix: 'parley:' });
  const client = createClient({ url: server.url });
  try {
    await storage.init();
    await client.connect();
    const used = async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
    const before = await used();
    await fill(storage);
    return (await used()) - before;
  } finally {
    client.destroy();
    await storage.close();
    await server.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'parley-sizing-'));
try {
  const rows: (string | number)[][] = [];
  const per = (bytes: number) => Math.round(bytes / N);
  const sample = Buffer.byteLength(JSON.stringify(record(N / 2)));
  rows.push(['sqlite', 'file growth (db + WAL)', per(await sqlite(dir))]);
  rows.push(['postgres', 'database growth (pg_database_size)', per(await postgres())]);
  rows.push(['redis', 'used_memory growth (private redis-server)', per(await redis(dir))]);
  console.log(`\n### bench/storage/sizing — ${machine()}, ${N.toLocaleString('en')} messages in ${CHATS} chats (a record is ${sample} bytes of JSON)\n`);
  console.log(table(['back end', 'measured', 'bytes per message'], rows));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
