/**
 * bench/instances: what creating, looking up and loading one instance costs as the number of instances
 * grows. A real Parley server (in this process) is filled through the real HTTP admin API; at each
 * level (10, 1,000, 10,000 existing instances by default) it times a window of creations
 * (`POST /admin/instances`, the sandbox assigning a free number), lookups by key of random existing
 * instances (`GET /admin/instances/{key}`), and cold lookups that load the instance from storage
 * (the instance unloaded first), after a warm-up window that is deleted again. The last row divides the last level by the first: ≈ 1 means flat.
 * `instances.list()` is timed too, for reference: before unique claims, every creation read it.
 * Run: `npm run build && node bench/dist/instances/instances.bench.js`
 * (BENCH_STORAGES=sqlite,memory,redis, BENCH_LEVELS=10,1000,10000, BENCH_WINDOW=200, REDIS_URL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@parley/core';
import { createLogger, loadConfig, ParleyServer, type PluginEntry } from '@parley/server';
import { deleteKeys } from '@parley/storage-redis/testing';
import { machine, percentile, table } from '../support/measure.js';

const STORAGES = (process.env.BENCH_STORAGES ?? 'sqlite,memory,redis').split(',');
const LEVELS = (process.env.BENCH_LEVELS ?? '10,1000,10000').split(',').map(Number);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 200);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOKEN = 'bench-admin-token-0123456789';
const ADMIN = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** Microseconds of one awaited call. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1000;
}

async function call(url: string, method: string, body?: unknown): Promise<any> {
  const res = await fetch(url, { method, headers: ADMIN, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Median and p99 in µs, as one cell. */
function cell(samples: number[]): string {
  return `${Math.round(percentile(samples, 50))} / ${Math.round(percentile(samples, 99))}`;
}

async function run(storage: string): Promise<(string | number)[][]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-instances-'));
  const prefix = `parley-bench-instances-${process.pid}-${Date.now()}:`;
  const storagePlugin: PluginEntry = storage === 'redis'
    ? { package: '@parley/storage-redis', options: { url: REDIS_URL, keyPrefix: prefix } }
    : { package: `@parley/storage-${storage}` };
  const config = loadConfig({}, {
    port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', defaultChannel: 'sandbox', adminToken: TOKEN,
    plugins: [storagePlugin, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
  });
  const server = await ParleyServer.create({ config, logger: createLogger({ level: 'warn' }) as unknown as Logger });
  const url = await server.listen();
  const created: { id: string; key: string }[] = [];
  const create = async () => {
    const { data } = await call(`${url}/admin/instances`, 'POST', {});
    created.push({ id: data.id, key: data.key });
  };
  const random = () => created[Math.floor(Math.random() * created.length)]!;
  const rows: (string | number)[][] = [];
  const medians: number[][] = [];
  try {
    // Warm-up (JIT, statement caches): a window of creations, lookups and deletions, leaving none.
    for (let i = 0; i < WINDOW; i++) await create();
    for (const { key } of created.splice(0)) {
      await call(`${url}/admin/instances/${key}`, 'GET');
      await call(`${url}/admin/instances/${key}`, 'DELETE');
    }
    for (const level of LEVELS) {
      while (created.length < level) await create();
      const creations: number[] = [];
      for (let i = 0; i < WINDOW; i++) creations.push(await timed(create));
      const lookups: number[] = [];
      for (let i = 0; i < WINDOW; i++) {
        const { key } = random();
        lookups.push(await timed(() => call(`${url}/admin/instances/${key}`, 'GET')));
      }
      const loads: number[] = [];
      for (let i = 0; i < WINDOW; i++) {
        const { id, key } = random();
        await server.context.registry.unload(id);
        loads.push(await timed(() => call(`${url}/admin/instances/${key}`, 'GET')));
      }
      const lists: number[] = [];
      for (let i = 0; i < 5; i++) lists.push(await timed(() => server.context.storage.instances.list()));
      const row = [percentile(creations, 50), percentile(lookups, 50), percentile(loads, 50), percentile(lists, 50)];
      medians.push(row);
      rows.push([storage, level, cell(creations), cell(lookups), cell(loads), (row[3]! / 1000).toFixed(1)]);
    }
    const first = medians[0]!;
    const last = medians[medians.length - 1]!;
    const ratio = (i: number) => `**${(last[i]! / first[i]!).toFixed(2)}**`;
    rows.push([storage, `${LEVELS[LEVELS.length - 1]} ÷ ${LEVELS[0]}`, ratio(0), ratio(1), ratio(2), `${Math.round(last[3]! / first[3]!)}×`]);
  } finally {
    // Deleting 10,000 instances one by one is not what is measured: the data dir (or key prefix) goes.
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (storage === 'redis') {
      await deleteKeys(REDIS_URL, prefix);
    }
  }
  return rows;
}

const rows: (string | number)[][] = [];
for (const storage of STORAGES) {
  const started = Date.now();
  rows.push(...(await run(storage)));
  console.error(`${storage}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
console.log(`\n### bench/instances — ${machine()}, window of ${WINDOW} per level (µs, median / p99)\n`);
console.log(table(['storage', 'existing instances', 'create (HTTP)', 'lookup by key (HTTP)', 'cold lookup + load (HTTP)', 'instances.list() ms'], rows));
