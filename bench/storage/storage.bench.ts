/**
 * bench/storage: message append, message page read, signal-key get/set and delivery queue
 * enqueue/claim/ack per second, on memory, SQLite and Redis in one run.
 * Run: `npm run build && node bench/dist/storage/storage.bench.js` (REDIS_URL, default redis://127.0.0.1:6379).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeStored, newMessageId, type Storage } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { RedisStorage } from '@parley/storage-redis';
import { SqliteStorage } from '@parley/storage-sqlite';
import { machine, opsPerSecond, table } from '../support/measure.js';

const N = Number(process.env.BENCH_STORAGE_N ?? 5000);

async function run(name: string, storage: Storage): Promise<(string | number)[]> {
  await storage.init();
  const instance = `ins_bench_${Date.now()}`;
  const chat = '5511900000002@s.whatsapp.net';
  const now = Math.floor(Date.now() / 1000);
  const append = await opsPerSecond(N, (i) => storage.messages.upsert(instance, {
    key: { remoteJid: chat, fromMe: i % 2 === 0, id: newMessageId() },
    message: { extendedTextMessage: { text: `message ${i}` } }, messageTimestamp: String(now + i), status: 'PENDING',
  }));
  const pages = Math.floor(N / 20);
  const read = await opsPerSecond(Math.min(pages, 1000), (i) => storage.messages.listByChat(instance, chat, { page: (i % pages) + 1, limit: 20 }));
  const key = encodeStored({ private: Buffer.alloc(32, 7), public: Buffer.alloc(33, 9), keyId: 1 });
  const keySet = await opsPerSecond(N, (i) => storage.authState.set(instance, [{ category: 'pre-key', id: String(i), value: key }]));
  const keyGet = await opsPerSecond(N, (i) => storage.authState.get(instance, 'pre-key', [String(i)]));
  const enqueue = await opsPerSecond(N, (i) => storage.deliveries.enqueue([{
    id: `bench-${instance}-${i}`, instance, url: `http://127.0.0.1:9/${i % 50}`, format: 'native', eventId: `e${i}`, eventType: 'message',
    body: '{"type":"message","data":{"text":"hello"}}', createdAt: Date.now(),
  }]));
  let acked = 0;
  const started = process.hrtime.bigint();
  while (acked < N) {
    const batch = await storage.deliveries.claim({ now: Date.now() + 1000, limit: 50, leaseMs: 30000 });
    if (batch.length === 0) break;
    for (const d of batch) await storage.deliveries.ack(d.id, { responseTimeMs: 3, status: 200 });
    acked += batch.length;
  }
  const claimAck = Math.round(acked / (Number(process.hrtime.bigint() - started) / 1e9));
  await Promise.all([storage.messages.clear(instance), storage.authState.clear(instance), storage.deliveries.clear(instance)]);
  await storage.close();
  return [name, append, read, keySet, keyGet, enqueue, claimAck];
}

const rows: (string | number)[][] = [];
rows.push(await run('memory', new MemoryStorage()));
const dir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
rows.push(await run('sqlite', new SqliteStorage({ file: join(dir, 'bench.db') })));
rmSync(dir, { recursive: true, force: true });
try {
  rows.push(await run('redis', new RedisStorage({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', keyPrefix: `parley-bench-${process.pid}:` })));
} catch (err) {
  console.error(`redis skipped: ${(err as Error).message}`);
}
console.log(`\n### bench/storage — ${machine()}, ${N} operations each (ops/s, one awaited call at a time)\n`);
console.log(table(['back end', 'message append', 'page read (20)', 'signal key set', 'signal key get', 'queue enqueue', 'queue claim+ack'], rows));
