/**
 * bench/webhooks: the webhook engine (`@parley/webhooks`) delivering to a local keep-alive receiver
 * (a bare node:http server in its own process answering 200), on memory and SQLite storage:
 * - burst: N events enqueued through `engine.handle` (one ordered chain per instance, all instances at
 *   once, as the event bus does), timed until the receiver got them all: deliveries/s, CPU per delivery
 *   and enqueue-to-receive latency; beside it, in interleaved rounds, two ceilings POSTing the same
 *   bodies and headers (rendered and signed beforehand) at the same concurrency: with the engine's own
 *   HTTP client (`HttpSender`) and with bare undici (issue 26, target 2: the engine ≤ 1.5× its CPU);
 * - paced: 500 events/s for a while, enqueue-to-receive p50/p99;
 * - backlog (SQLite): the receiver down, 100,000 events enqueued, RSS before/after; then the receiver
 *   up, everything delivered, RSS sampled during and after.
 *
 * Run: `npx tsc -b packages/webhooks plugins/webhook-native plugins/storage-sqlite plugins/storage-memory bench`
 *      then `node --expose-gc bench/dist/webhooks/webhooks.bench.js`
 * Env: BENCH_WEBHOOKS_N (burst events, default 5000), BENCH_WEBHOOKS_LANES (instances, 32),
 *      BENCH_WEBHOOKS_PACED_SECONDS (10), BENCH_WEBHOOKS_BACKLOG (100000; 0 skips the backlog run),
 *      BENCH_WEBHOOKS_STORAGE (memory,sqlite), BENCH_WEBHOOKS_ROUNDS (3: engine and ceiling bursts take turns,
 *      each figure is the median round; a ratio is the median of the per-round ratios),
 *      BENCH_WEBHOOKS_PROFILE (a directory: CPU profiles of each burst, see ./profile.ts).
 */
import { setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSecret, newUlid, type ChannelEvent, type InstanceRecord, type Logger, type Storage } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { SqliteStorage } from '@parley/storage-sqlite';
import { shippedChannelDirectory, webhookEventFixtures } from '@parley/testkit';
import { NativeFormat } from '@parley/webhook-native';
import {
  HttpSender, newWebhookSecret, resolveWebhookOptions, standardWebhookHeaders, WebhookEngine, deliveryId, type WebhookOptionsInput,
} from '@parley/webhooks';
import { machine, percentile, rssMiB, table } from '../support/measure.js';
import { bareUndici } from './bare-undici.js';
import { profiled } from './profile.js';
import { Receiver } from './receiver-client.js';

const N = Number(process.env.BENCH_WEBHOOKS_N ?? 5_000);
const LANES = Number(process.env.BENCH_WEBHOOKS_LANES ?? 32);
const PACED_RATE = 500;
const PACED_SECONDS = Number(process.env.BENCH_WEBHOOKS_PACED_SECONDS ?? 10);
const BACKLOG = Number(process.env.BENCH_WEBHOOKS_BACKLOG ?? 100_000);
const STORAGES = (process.env.BENCH_WEBHOOKS_STORAGE ?? 'memory,sqlite').split(',');
const ROUNDS = Number(process.env.BENCH_WEBHOOKS_ROUNDS ?? 3);
const OPTIONS: WebhookOptionsInput = {};
const CONCURRENCY = resolveWebhookOptions(OPTIONS).concurrency;
const USER_AGENT = resolveWebhookOptions(OPTIONS).userAgent;

const now = () => performance.timeOrigin + performance.now();
/** CPU time of this thread alone (Node ≥ 23.9; the repository's @types/node does not declare it yet). */
const threadCpuUsage = (previous?: NodeJS.CpuUsage): NodeJS.CpuUsage =>
  (process as unknown as { threadCpuUsage(previous?: NodeJS.CpuUsage): NodeJS.CpuUsage }).threadCpuUsage(previous);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const heapMiB = () => Math.round((process.memoryUsage().heapUsed / 1048576) * 10) / 10;
const silent: Logger = { child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
const dir = mkdtempSync(join(tmpdir(), 'parley-bench-webhooks-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

const receiver = await Receiver.start();
const fixture = webhookEventFixtures();
const textFixture = fixture.events['message-text'];
if (textFixture.type !== 'message') throw new Error('fixture message-text is not a message');
const textMessage = textFixture.message;

let storageSeq = 0;
async function openStorage(kind: string): Promise<Storage> {
  const storage = kind === 'sqlite' ? new SqliteStorage({ file: join(dir, `bench-${++storageSeq}.sqlite`) }) : new MemoryStorage();
  await storage.init();
  return storage;
}

/** `lanes` instances, each with its own URL (one lane each). */
async function createInstances(storage: Storage, lanes = LANES): Promise<InstanceRecord[]> {
  const instances: InstanceRecord[] = [];
  for (let i = 0; i < lanes; i++) {
    const instance: InstanceRecord = {
      ...fixture.instance, id: `ins_bench_${storageSeq}_${i}`, key: newSecret(), webhookSecret: newWebhookSecret(),
      webhook: { ...fixture.instance.webhook, allowWebhook: true, allowNumber: 'all', webhookFormat: 'native', webhookMessage: `${receiver.url}/lane/${i}` },
    };
    await storage.instances.create(instance);
    instances.push(instance);
  }
  return instances;
}

function textEvent(instance: InstanceRecord, n: number): ChannelEvent {
  return {
    type: 'message', provider: 'whatsapp', id: newUlid(Date.now()), instance: instance.id, receivedAt: Date.now(),
    message: { ...textMessage, id: `3EB0BENCH${String(n).padStart(12, '0')}`, content: { type: 'text', body: `benchmark message ${n}` } },
  };
}

function engineOn(storage: Storage, options: WebhookOptionsInput = OPTIONS): WebhookEngine {
  return new WebhookEngine({
    storage, formats: [new NativeFormat()], logger: silent, clock: { now: () => Date.now() },
    host: { dataDir: dir, publicUrl: 'https://parley.example', allowPrivateUrls: true }, channels: shippedChannelDirectory(), options,
  });
}

/** The event id inside a delivery id `msg_<event id>_<hash>`. */
const eventIdOf = (deliveryId: string) => deliveryId.split('_')[1]!;

interface Figures {
  rate: number;
  p50: number;
  p99: number;
  /** CPU time of this process per delivery (user + system, µs): insensitive to other load on the machine. */
  cpuUs: number;
  /** The same, of the main thread alone: the rest is other threads' (SQLite's background checkpoints). */
  mainThreadUs: number;
}

function figures(count: number, seconds: number, latencies: number[], cpu: NodeJS.CpuUsage, thread: NodeJS.CpuUsage): Figures {
  return {
    rate: Math.round(count / seconds), p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)),
    cpuUs: Math.round((cpu.user + cpu.system) / count), mainThreadUs: Math.round((thread.user + thread.system) / count),
  };
}

/** Latency of each received delivery from the time its event was handed over. */
async function latencies(handedAt: Map<string, number>): Promise<number[]> {
  const times = await receiver.times();
  if (times.length !== handedAt.size) throw new Error(`receiver got ${times.length} requests for ${handedAt.size} events`);
  return times.map(([id, at]) => at - handedAt.get(eventIdOf(id))!);
}

/** Burst: N events handed over as fast as the engine takes them, one chain per instance. */
async function burst(kind: string, lanes = LANES, profile = `engine-${kind}-${lanes}`): Promise<Figures & { enqueueRate: number }> {
  const storage = await openStorage(kind);
  const instances = await createInstances(storage, lanes);
  const engine = engineOn(storage);
  engine.start();
  receiver.reset();
  const reached = receiver.expect(N);
  const handedAt = new Map<string, number>();
  let enqueued = 0;
  const cpu = process.cpuUsage();
  const thread = threadCpuUsage();
  const started = now();
  await profiled(profile, async () => {
    await Promise.all(instances.map(async (instance, lane) => {
      for (let n = lane; n < N; n += lanes) {
        const event = textEvent(instance, n);
        handedAt.set(event.id, now());
        await engine.handle(event, instance);
      }
    }));
    enqueued = now();
    await reached;
  });
  const seconds = (now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const usedByThread = threadCpuUsage(thread);
  const result = { ...figures(N, seconds, await latencies(handedAt), used, usedByThread), enqueueRate: Math.round(N / ((enqueued - started) / 1000)) };
  await engine.stop();
  await storage.close();
  return result;
}

/**
 * The ceiling: the same bodies and headers, rendered and signed beforehand, POSTed by a bare loop
 * `CONCURRENCY` at a time, with the engine's own HTTP client (`sender`: undici behind the guarded
 * dialer, a time-out and the shared abort signal) or with bare undici (./bare-undici.ts).
 */
async function ceiling(client: 'sender' | 'undici', profile: string = client): Promise<Figures> {
  const context = { instance: fixture.instance, mainChannel: 'whatsapp', serviceTag: 'parley', mediaUrl: (id: string) => `https://parley.example/{key}/message/${id}/media` };
  const format = new NativeFormat();
  const secret = newWebhookSecret();
  const requests = Array.from({ length: N }, (_, n) => {
    const event = textEvent({ ...fixture.instance, id: `ins_bench_ceiling_${n % LANES}` }, n);
    const url = `${receiver.url}/lane/${n % LANES}`;
    const id = deliveryId(event.id, 'native', url);
    const body = JSON.stringify(format.render(event, context));
    return { eventId: event.id, url, body, headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...standardWebhookHeaders(id, Math.floor(Date.now() / 1000), body, secret) } };
  });
  const sender = new HttpSender(true, USER_AGENT, CONCURRENCY);
  const undici = bareUndici(CONCURRENCY);
  // One signal shared by every request in flight, as the engine's worker shares one between its attempts.
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  const post = client === 'sender'
    ? async (request: (typeof requests)[number]) => (await sender.post(request.url, request.headers, request.body, 15_000, abort.signal)).status
    : (request: (typeof requests)[number]) => undici.post(request.url, request.headers, request.body);
  receiver.reset();
  const reached = receiver.expect(N);
  const handedAt = new Map<string, number>();
  let next = 0;
  const cpu = process.cpuUsage();
  const thread = threadCpuUsage();
  const started = now();
  await profiled(profile, async () => {
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        handedAt.set(request.eventId, now());
        const status = await post(request);
        if (status !== 200) throw new Error(`ceiling: HTTP ${status}`);
      }
    }));
    await reached;
  });
  const seconds = (now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const usedByThread = threadCpuUsage(thread);
  sender.destroy();
  await undici.close();
  return figures(N, seconds, await latencies(handedAt), used, usedByThread);
}

/** Paced: PACED_RATE events/s spread over the instances for PACED_SECONDS. */
async function paced(kind: string): Promise<Figures> {
  const storage = await openStorage(kind);
  const instances = await createInstances(storage);
  const engine = engineOn(storage);
  engine.start();
  const total = PACED_RATE * PACED_SECONDS;
  receiver.reset();
  const reached = receiver.expect(total);
  const handedAt = new Map<string, number>();
  const chains = instances.map(() => Promise.resolve());
  const cpu = process.cpuUsage();
  const thread = threadCpuUsage();
  const started = now();
  for (let n = 0; n < total;) {
    const due = Math.min(total, Math.floor(((now() - started) / 1000) * PACED_RATE) + 1);
    for (; n < due; n++) {
      const lane = n % LANES;
      const event = textEvent(instances[lane]!, n);
      chains[lane] = chains[lane]!.then(() => {
        handedAt.set(event.id, now());
        return engine.handle(event, instances[lane]!);
      });
    }
    await sleep(1000 / PACED_RATE);
  }
  await Promise.all(chains);
  await reached;
  const result = figures(total, (now() - started) / 1000, await latencies(handedAt), process.cpuUsage(cpu), threadCpuUsage(thread));
  await engine.stop();
  await storage.close();
  return result;
}

/** Backlog: receiver down, BACKLOG events queued in SQLite, then delivered; RSS along the way. */
async function backlog(): Promise<{ rss: Record<string, number>; enqueueRate: number; deliverRate: number }> {
  const storage = await openStorage('sqlite');
  const instances = await createInstances(storage);
  // Failed heads retry every second, never dead-lettered while the receiver is down.
  const engine = engineOn(storage, { retry: { schedule: Array.from({ length: 100 }, () => 1_000), jitter: 0 } });
  engine.start();
  await receiver.down();
  receiver.reset();
  gc();
  const rss: Record<string, number> = { before: rssMiB(), heapBefore: heapMiB() };
  const started = now();
  await Promise.all(instances.map(async (instance, lane) => {
    for (let n = lane; n < BACKLOG; n += LANES) await engine.handle(textEvent(instance, n), instance);
  }));
  const enqueueRate = Math.round(BACKLOG / ((now() - started) / 1000));
  gc();
  rss.queued = rssMiB();
  rss.heapQueued = heapMiB();
  const pending = (await Promise.all(instances.map((i) => engine.stats(i.id)))).reduce((sum, s) => sum + s.totalPending, 0);
  if (pending !== BACKLOG) throw new Error(`backlog: ${pending} pending of ${BACKLOG}`);
  const reached = receiver.expect(BACKLOG);
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB());
  }, 250);
  const delivering = now();
  await receiver.up();
  await reached;
  const deliverRate = Math.round(BACKLOG / ((now() - delivering) / 1000));
  clearInterval(sampler);
  rss.peakDelivering = Math.max(peak, rssMiB());
  await engine.stop();
  gc();
  rss.delivered = rssMiB();
  rss.heapDelivered = heapMiB();
  await storage.close();
  gc();
  rss.closed = rssMiB();
  return { rss, enqueueRate, deliverRate };
}

const date = new Date().toISOString().slice(0, 10);
console.log(`\n### bench/webhooks — ${date}, ${machine()}; ${LANES} instances (lanes), concurrency ${CONCURRENCY}, native format\n`);

await ceiling('sender'); // warm-up of the receiver and the clients
await ceiling('undici');
const rows: (string | number)[][] = [];
const median = (values: number[]) => percentile(values, 50);
const times = (value: number) => `${value.toFixed(2)}×`;
for (const kind of STORAGES) {
  // Engine and ceilings take turns, ROUNDS times, the order reversed every other round: a slower
  // stretch of a shared machine hits each as often.
  const pairs: { engine: Figures & { enqueueRate: number }; sender: Figures; undici: Figures }[] = [];
  await burst(kind, LANES, `engine-${kind}-warm-up`); // the engine's code compiled and optimised before the first round
  for (let r = 0; r < ROUNDS; r++) {
    const round: Partial<(typeof pairs)[number]> = {};
    const steps = [
      async () => (round.engine = await burst(kind, LANES, `engine-${kind}-${r + 1}`)),
      async () => (round.sender = await ceiling('sender', `sender-${kind}-${r + 1}`)),
      async () => (round.undici = await ceiling('undici', `undici-${kind}-${r + 1}`)),
    ];
    for (const step of r % 2 === 0 ? steps : steps.reverse()) await step();
    pairs.push(round as (typeof pairs)[number]);
  }
  const of = (pick: (pair: (typeof pairs)[number]) => number) => median(pairs.map(pick));
  rows.push([
    kind, LANES, of((p) => p.engine.rate), of((p) => p.undici.rate), of((p) => p.engine.cpuUs), of((p) => p.sender.cpuUs), of((p) => p.undici.cpuUs),
    times(of((p) => p.engine.cpuUs / p.undici.cpuUs)), times(of((p) => p.engine.cpuUs / p.sender.cpuUs)),
    of((p) => p.engine.enqueueRate), of((p) => p.engine.p50), of((p) => p.engine.p99), of((p) => p.undici.p50), of((p) => p.undici.p99),
  ]);
  console.log(`${kind}, per round (engine [its main thread] / engine's client / bare undici CPU µs per delivery; engine ÷ bare undici): ${pairs
    .map((p) => `${p.engine.cpuUs} [${p.engine.mainThreadUs}] / ${p.sender.cpuUs} / ${p.undici.cpuUs} (${times(p.engine.cpuUs / p.undici.cpuUs)})`).join(', ')}`);
}
for (const kind of STORAGES) {
  // One instance and URL: strict order, one request at a time (no ceiling at concurrency 1 to compare with).
  const single = await burst(kind, 1);
  rows.push([kind, 1, single.rate, '', single.cpuUs, '', '', '', '', single.enqueueRate, single.p50, single.p99, '', '']);
}
console.log(`Burst of ${N} events (ratios: median of the per-round ratios):\n`);
console.log(table([
  'storage', 'lanes', 'engine deliveries/s', 'bare undici req/s', 'engine CPU µs/delivery', "engine's client CPU µs/req", 'bare undici CPU µs/req',
  'engine ÷ bare undici (CPU)', "engine ÷ engine's client (CPU)", 'enqueue events/s', 'engine p50 ms', 'engine p99 ms', 'bare undici p50 ms', 'bare undici p99 ms',
], rows));

const pacedRows: (string | number)[][] = [];
for (const kind of PACED_SECONDS > 0 ? STORAGES : []) {
  const run = await paced(kind);
  pacedRows.push([kind, run.rate, run.p50, run.p99, run.cpuUs]);
}
console.log(`\nPaced ${PACED_RATE} events/s for ${PACED_SECONDS} s (enqueue to receive):\n`);
console.log(table(['storage', 'delivered/s', 'p50 ms', 'p99 ms', 'CPU µs/delivery'], pacedRows));

if (BACKLOG > 0) {
  const run = await backlog();
  console.log(`\nBacklog of ${BACKLOG} events on SQLite with the receiver down, then delivered (RSS MiB${(globalThis as { gc?: unknown }).gc ? ', after a full GC' : ''}):\n`);
  console.log(table([
    'RSS before', 'RSS queued', 'RSS peak while delivering', 'RSS delivered', 'RSS storage closed', 'JS heap before / queued / delivered',
    'enqueue events/s', 'backlog deliveries/s',
  ], [[
    run.rss.before!, run.rss.queued!, run.rss.peakDelivering!, run.rss.delivered!, run.rss.closed!,
    `${run.rss.heapBefore} / ${run.rss.heapQueued} / ${run.rss.heapDelivered}`, run.enqueueRate, run.deliverRate,
  ]]));
}
receiver.stop();
