/**
 * A benchmark target in its own process: `bare-http`, `bare-express`, `parley` (SQLite storage; every
 * send through the outbound queue, pacing off), `parley-direct` (the same without the queue:
 * `queue.enabled` false, the send path before issue 16), `parley-redis` (Redis storage at REDIS_URL,
 * under a key prefix of its own that it deletes on SIGTERM) or `parley-postgres` (PostgreSQL storage in a
 * database of its own on the server at DATABASE_URL, dropped on SIGTERM; its name is printed as `database`,
 * so that the bench counts the CPU of the server processes serving it).
 * `fair-baseline` is the same send's storage work done plainly (./fair-baseline.ts), in a temporary directory.
 * Parley targets create a sending sandbox phone and BENCH_PEERS (20) receiving ones. Prints one JSON
 * line `{ port, key?, to? }` (`to`: the receiving numbers) on stdout once it listens; stops on SIGTERM.
 *
 * Started with `--expose-gc` and an IPC channel (bench/memory), it answers the IPC message `'heap'` with
 * its memory after full collections (`{ heapUsed, rss, external }`), and `{ snapshot: file }` with a heap
 * snapshot written there (to see what grows): hooks of this bench process only, no endpoint of the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import express from 'express';
import { deleteKeys } from '@parley/storage-redis/testing';
import { createTestDatabase } from '@parley/storage-postgres/testing';
import { createLogger, loadConfig, ParleyServer } from '@parley/server';
import type { Logger } from '@parley/core';
import { startFairBaseline } from './fair-baseline.js';

const kind = process.argv[2];
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const postgresUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function main(): Promise<Record<string, unknown>> {
  if (kind === 'bare-http') {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 200, data: { text: body.text } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.on('SIGTERM', () => server.close(() => process.exit(0)));
    return { port: (server.address() as { port: number }).port };
  }
  if (kind === 'bare-express') {
    const app = express();
    app.use(express.json());
    app.post('/:key/message/text', (req, res) => {
      res.json({ status: 200, data: { text: (req.body as { text: string }).text } });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((r) => server.once('listening', () => r()));
    process.on('SIGTERM', () => server.close(() => process.exit(0)));
    return { port: (server.address() as { port: number }).port };
  }
  if (kind === 'fair-baseline') {
    const dir = mkdtempSync(join(tmpdir(), 'parley-bench-fair-'));
    const baseline = await startFairBaseline(dir);
    process.on('SIGTERM', () => void baseline.close().then(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }));
    return { port: baseline.port, to: Array.from({ length: Number(process.env.BENCH_PEERS ?? 20) }, (_, i) => String(5511970000002 + i)) };
  }
  if (kind === 'parley' || kind === 'parley-direct' || kind === 'parley-redis' || kind === 'parley-postgres') {
    const dataDir = process.env.BENCH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'parley-bench-rest-'));
    const keyPrefix = `parley-bench-rest-${process.pid}:`;
    const database = kind === 'parley-postgres' ? await createTestDatabase(postgresUrl, 'bench') : undefined;
    const storage = kind === 'parley-redis' ? { package: '@parley/storage-redis', options: { url: redisUrl, keyPrefix } }
      : database ? { package: '@parley/storage-postgres', options: { url: database.url, ...(process.env.BENCH_PG_OPTIONS ? JSON.parse(process.env.BENCH_PG_OPTIONS) as object : {}) } }
        : { package: '@parley/storage-sqlite' };
    const config = loadConfig({}, {
      port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', defaultChannel: 'sandbox', adminToken: 'bench-admin-token-0123456789',
      plugins: [storage, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
      // The queued targets get the largest bound the config allows: a backlog that outgrows the default
      // 10,000 answers 429 (back-pressure, by design), and a round must not fail for it; each round waits
      // for the queue to drain afterwards, which the table reports.
      queue: { enabled: kind !== 'parley-direct', maxQueued: kind === 'parley-direct' ? 10_000 : 1_000_000, leaseMs: 60_000, recheckMs: 1_000, concurrency: 64 },
    });
    const server = await ParleyServer.create({ config, logger: createLogger({ level: 'warn' }) as unknown as Logger });
    const url = await server.listen();
    const admin = { authorization: 'Bearer bench-admin-token-0123456789', 'content-type': 'application/json' };
    const keys: string[] = [];
    const peers = Array.from({ length: Number(process.env.BENCH_PEERS ?? 20) }, (_, i) => String(5511970000002 + i));
    for (const number of ['5511970000001', ...peers]) {
      const res = await fetch(`${url}/admin/instances`, { method: 'POST', headers: admin, body: JSON.stringify({ channel: 'sandbox', options: { number } }) });
      const key = ((await res.json()) as { data: { key: string } }).data.key;
      await fetch(`${url}/${key}/instance`, { method: 'POST' });
      await fetch(`${url}/sandbox/${key}/scan`, { method: 'POST' });
      keys.push(key);
    }
    process.on('SIGTERM', () => void server.close()
      .then(() => (kind === 'parley-redis' ? deleteKeys(redisUrl, keyPrefix) : database?.drop()))
      .then(() => process.exit(0)));
    return { port: Number(new URL(url).port), key: keys[0], to: peers, ...(database ? { database: database.name } : {}) };
  }
  throw new Error(`unknown target ${kind}`);
}

const gc = (globalThis as { gc?: () => void }).gc;
if (process.send && gc) {
  process.on('message', (message) => {
    if (typeof message === 'object' && message && 'snapshot' in message) {
      process.send!({ snapshot: writeHeapSnapshot((message as { snapshot: string }).snapshot) });
      return;
    }
    if (message !== 'heap') return;
    void (async () => {
      // Full collections with turns in between, so finalizers and weak references settle.
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
      const { heapUsed, rss, external } = process.memoryUsage();
      process.send!({ heapUsed, rss, external });
    })();
  });
}

main().then((info) => process.stdout.write(`${JSON.stringify(info)}\n`), (err: unknown) => {
  console.error(err);
  process.exit(1);
});
