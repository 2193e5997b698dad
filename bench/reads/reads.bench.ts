/**
 * bench/reads: whether a chat's message pages cost the same at any chat size and depth (issue 26,
 * target 4: "page 1 and page 4,000 within 1.5× of a 100-message chat's page 1"). A real Parley server
 * (in this process) with one sandbox instance holds a 100-message chat and a 100,000-message chat,
 * seeded through the storage API (as the server's own writes do, without 100,000 HTTP sends); then
 * `GET /{key}/chat/{jid}/messages?page=N&limit=25` is timed over real HTTP in interleaved rounds: in
 * each round a window of the small chat's page 1, the large chat's page 1 and its page 4,000 (its
 * oldest 25), back to back, each round starting with the next of the three. Each ratio is the median of the per-round ratios of medians, so load that
 * other processes put on the machine during a round weighs on both sides of it.
 * Run: `npm run build && node bench/dist/reads/reads.bench.js`
 * (BENCH_STORAGES=sqlite,redis,memory, BENCH_LARGE=100000, BENCH_ROUNDS=7, BENCH_WINDOW=200, REDIS_URL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger, MessageRecord } from '@parley/core';
import { createLogger, loadConfig, ParleyServer, type PluginEntry } from '@parley/server';
import { deleteKeys } from '@parley/storage-redis/testing';
import { machine, percentile, table } from '../support/measure.js';

const STORAGES = (process.env.BENCH_STORAGES ?? 'sqlite,redis').split(',');
const LARGE = Number(process.env.BENCH_LARGE ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 200);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOKEN = 'bench-admin-token-0123456789';
const LIMIT = 25;
const SMALL_CHAT = '5511900000001@s.whatsapp.net';
const LARGE_CHAT = '5511900000002@s.whatsapp.net';

function message(chat: string, i: number): MessageRecord {
  return {
    key: { remoteJid: chat, fromMe: i % 2 === 0, id: `${chat.slice(0, 13)}-${i}` },
    message: { conversation: `message ${i} of a long conversation, about as long as a real one` },
    messageTimestamp: String(1_700_000_000 + i), status: 'DELIVERY_ACK', provider: 'whatsapp', pushName: 'Alice',
  };
}

/** Upserts `count` messages of `chat`, 256 at a time, and waits until they are durable. */
async function seed(server: ParleyServer, instance: string, chat: string, count: number): Promise<void> {
  const { messages } = server.context.storage;
  for (let from = 0; from < count; from += 256) {
    await Promise.all(Array.from({ length: Math.min(256, count - from) }, (_, i) => messages.upsert(instance, message(chat, from + i))));
  }
  await server.context.storage.flush();
}

/** Microseconds of each of `WINDOW` sequential GETs of one page; checks the answer once. */
async function window(url: string, expect: { total: number; first: string }): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WINDOW; i++) {
    const started = process.hrtime.bigint();
    const res = await fetch(url);
    const answer = await res.json() as { data: MessageRecord[]; total: number };
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
    if (i === 0 && (!res.ok || answer.total !== expect.total || answer.data.length !== LIMIT || answer.data[0]!.key.id !== expect.first)) {
      throw new Error(`${url}: unexpected answer ${res.status} total ${answer.total}, ${answer.data?.length} items`);
    }
  }
  return samples;
}

async function run(storage: string): Promise<(string | number)[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-reads-'));
  const prefix = `parley-bench-reads-${process.pid}-${Date.now()}:`;
  const plugin: PluginEntry = storage === 'redis'
    ? { package: '@parley/storage-redis', options: { url: REDIS_URL, keyPrefix: prefix } }
    : { package: `@parley/storage-${storage}` };
  const config = loadConfig({}, {
    port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', defaultChannel: 'sandbox', adminToken: TOKEN,
    plugins: [plugin, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
  });
  const server = await ParleyServer.create({ config, logger: createLogger({ level: 'warn' }) as unknown as Logger });
  try {
    const base = await server.listen();
    const created = await fetch(`${base}/admin/instances`, {
      method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{}',
    });
    const { data } = await created.json() as { data: { id: string; key: string } };
    const seeding = performance.now();
    await seed(server, data.id, SMALL_CHAT, 100);
    await seed(server, data.id, LARGE_CHAT, LARGE);
    const seeded = (performance.now() - seeding) / 1000;
    const page = (chat: string, n: number) => `${base}/${data.key}/chat/${encodeURIComponent(chat)}/messages?page=${n}&limit=${LIMIT}`;
    const deep = Math.ceil(LARGE / LIMIT);
    const targets = [
      { url: page(SMALL_CHAT, 1), expect: { total: 100, first: message(SMALL_CHAT, 99).key.id } },
      { url: page(LARGE_CHAT, 1), expect: { total: LARGE, first: message(LARGE_CHAT, LARGE - 1).key.id } },
      { url: page(LARGE_CHAT, deep), expect: { total: LARGE, first: message(LARGE_CHAT, LARGE - 1 - (deep - 1) * LIMIT).key.id } },
    ];
    for (const target of targets) await window(target.url, target.expect); // warm-up: JIT, statement caches
    const medians: number[][] = [[], [], []];
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with another target, so that no page always pays for coming first.
      for (let k = 0; k < targets.length; k++) {
        const i = (round + k) % targets.length;
        medians[i]!.push(percentile(await window(targets[i]!.url, targets[i]!.expect), 50));
      }
    }
    const median = (values: number[]) => percentile(values, 50);
    const ratio = (i: number) => median(medians[i]!.map((value, round) => value / medians[0]![round]!));
    const us = (values: number[]) => Math.round(median(values));
    const within = ratio(1) <= 1.5 && ratio(2) <= 1.5 ? 'yes' : 'no';
    return [storage, seeded.toFixed(1), us(medians[0]!), us(medians[1]!), us(medians[2]!), `**${ratio(1).toFixed(2)}**`, `**${ratio(2).toFixed(2)}**`, within];
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (storage === 'redis') await deleteKeys(REDIS_URL, prefix);
  }
}

const rows: (string | number)[][] = [];
for (const storage of STORAGES) {
  rows.push(await run(storage));
  console.error(rows[rows.length - 1]!.join(' | '));
}
console.log(`\n### bench/reads — ${machine()}, ${ROUNDS} rounds of ${WINDOW} GETs per page (µs, median of the round medians)\n`);
console.log(table([
  'storage', `seed 100 + ${LARGE.toLocaleString('en')} messages (s)`, '100-message chat, page 1',
  `${LARGE.toLocaleString('en')}-message chat, page 1`, `page ${Math.ceil(LARGE / LIMIT).toLocaleString('en')}`,
  'page 1 ÷ small page 1', 'deep page ÷ small page 1', 'within 1.5×',
], rows));
