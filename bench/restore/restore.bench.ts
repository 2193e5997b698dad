/**
 * bench/restore: how long a restarted node takes to bring its instances back. A real Parley server (in
 * this process) is filled with N connected sandbox instances through the real HTTP API (create,
 * connect, scan), closed, and started again on the same data: the table shows when `/healthz`
 * answered, when the restorer had finished (every connect call returned), and when every instance's
 * connection was open in this process, all from the start of the new server's `create`.
 *
 * Two restarts per storage, on the same data and in the same run: the defaults (concurrency 64 per
 * driver, the sandbox's 10,000 connections per second), and one instance at a time with no rate limit
 * (`restore.concurrency` 1): what a sequential restore costs, without the old 500 ms stagger (which
 * alone would take N × 0.5 s).
 *
 * Run: `npm run build && node bench/dist/restore/restore.bench.js`
 * (BENCH_INSTANCES=10000, BENCH_STORAGES=sqlite,redis, REDIS_URL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@parley/core';
import { createLogger, loadConfig, ParleyServer, type PluginEntry, type RestoreConfig } from '@parley/server';
import { deleteKeys } from '@parley/storage-redis/testing';
import { machine, table } from '../support/measure.js';

const N = Number(process.env.BENCH_INSTANCES ?? 10_000);
const STORAGES = (process.env.BENCH_STORAGES ?? 'sqlite').split(',');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOKEN = 'bench-admin-token-0123456789';
const ADMIN = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const TARGET_S = 60;

async function call(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<any> {
  const res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function start(dataDir: string, storage: PluginEntry, restore?: RestoreConfig): Promise<ParleyServer> {
  const config = loadConfig({}, {
    port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', defaultChannel: 'sandbox', adminToken: TOKEN, allowPrivateUrls: true,
    plugins: [storage, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
    ...(restore ? { restore } : {}),
  });
  return ParleyServer.create({ config, logger: createLogger({ level: 'warn' }) as unknown as Logger });
}

/** Fills a server with N connected sandbox instances, 32 requests in flight. */
async function fill(server: ParleyServer): Promise<void> {
  const url = await server.listen();
  let next = 0;
  const worker = async () => {
    while (next < N) {
      next++;
      const { data } = await call(`${url}/admin/instances`, 'POST', ADMIN, {});
      const headers = { 'content-type': 'application/json' };
      await call(`${url}/${data.key}/instance`, 'POST', headers);
      await call(`${url}/sandbox/${data.key}/scan`, 'POST', headers);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await server.context.bus.drain();
  await server.close();
}

/** One restart: seconds from create to /healthz, to every connection started, to every instance connected. */
async function restart(dataDir: string, storage: PluginEntry, label: string, restore?: RestoreConfig): Promise<(string | number)[]> {
  const began = performance.now();
  const server = await start(dataDir, storage, restore);
  const url = await server.listen();
  const healthy = (await fetch(`${url}/healthz`)).ok ? performance.now() : NaN;
  await server.restored();
  const started = performance.now();
  let connected = 0;
  for (;;) {
    connected = server.context.registry.loaded().filter((r) => r.main.capabilities.connection?.state().phoneConnected === true).length;
    if (connected === N || performance.now() - began > 600_000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const done = performance.now();
  await server.close();
  const s = (t: number) => ((t - began) / 1000).toFixed(1);
  return [label, s(healthy), s(started), connected === N ? s(done) : `${connected} of ${N} after 600 s`, connected === N && done - began <= TARGET_S * 1000 ? 'yes' : 'no'];
}

const rows: (string | number)[][] = [];
for (const storage of STORAGES) {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-restore-'));
  const prefix = `parley-bench-restore-${process.pid}-${Date.now()}:`;
  const plugin: PluginEntry = storage === 'redis'
    ? { package: '@parley/storage-redis', options: { url: REDIS_URL, keyPrefix: prefix } }
    : { package: `@parley/storage-${storage}` };
  try {
    const filling = performance.now();
    await fill(await start(dataDir, plugin));
    console.error(`${storage}: ${N} instances created and connected in ${((performance.now() - filling) / 1000).toFixed(1)} s`);
    for (const [label, restore] of [
      ['defaults (64 at once per driver, sandbox 10,000/s)', undefined],
      ['one at a time, no rate limit', { concurrency: 1, perSecond: { sandbox: 100_000 } }],
    ] as const) {
      const row = await restart(dataDir, plugin, label, restore);
      console.error(row.join(' | '));
      rows.push([storage, N, ...row]);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (storage === 'redis') await deleteKeys(REDIS_URL, prefix);
  }
}
console.log(`\n### bench/restore — ${machine()} (seconds from the restarted server's create)\n`);
console.log(table(['storage', 'instances', 'restore', '/healthz', 'restorer done', 'every instance connected', `within ${TARGET_S} s`], rows));
