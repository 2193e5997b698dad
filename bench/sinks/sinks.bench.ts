/**
 * bench/sinks: the event sinks (`@parley/sink-amqp`, `@parley/sink-nats`) fed by the webhook engine's
 * outbox and worker, against the machine's RabbitMQ and NATS JetStream:
 * - burst: N events handed to `engine.handle` (one ordered chain per instance, all instances at once,
 *   as the event bus does), timed until every publish was confirmed (AMQP publisher confirm, JetStream
 *   ack): events/s. The worker claims up to `batchSize` (64) events per instance and publishes them
 *   pipelined. Beside it, in the same run and alternating with it, the ceiling: a bare client loop
 *   (amqplib confirm channel / nats.js `js.publish`) publishing the same bodies, routing keys and
 *   message ids with confirms, as many in flight as the worker's concurrency. "Parley / bare" is the
 *   median of the per-round ratios (target ≥ 70 %).
 * - backlog: the broker unreachable (a TCP proxy cut), BACKLOG events queued, then the proxy restored:
 *   drain rate from the restore until the last confirm.
 *
 * Run: `npx tsc -b bench` then `AMQP_URL=amqp://guest:guest@127.0.0.1:5672 NATS_URL=nats://127.0.0.1:4222 node bench/dist/sinks/sinks.bench.js`
 * Env: BENCH_SINKS_N (burst events, default 5000), BENCH_SINKS_LANES (instances, 32), BENCH_SINKS_ROUNDS (3),
 *      BENCH_SINKS_BACKLOG (20000; 0 skips), BENCH_SINKS_STORAGE (memory,sqlite), BENCH_SINKS_BROKERS (amqp,nats).
 * Every exchange, queue and stream is private to the run and deleted at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as amqpConnect } from 'amqplib';
import { connect as natsConnect, headers as natsHeaders } from 'nats';
import { newSecret, newUlid, silentLogger, type ChannelEvent, type InstanceRecord, type Sink, type Storage } from '@parley/core';
import { AmqpSink } from '@parley/sink-amqp';
import { amqpReader, deleteAmqpExchange } from '@parley/sink-amqp/testing';
import { NatsSink } from '@parley/sink-nats';
import { deleteNatsStream, natsReader } from '@parley/sink-nats/testing';
import { MemoryStorage } from '@parley/storage-memory';
import { SqliteStorage } from '@parley/storage-sqlite';
import { shippedChannelDirectory, TcpProxy, webhookEventFixtures } from '@parley/testkit';
import { NativeFormat } from '@parley/webhook-native';
import { resolveWebhookOptions, WebhookEngine, type WebhookOptionsInput } from '@parley/webhooks';
import { machine, percentile, table } from '../support/measure.js';

const N = Number(process.env.BENCH_SINKS_N ?? 5_000);
const LANES = Number(process.env.BENCH_SINKS_LANES ?? 32);
const ROUNDS = Number(process.env.BENCH_SINKS_ROUNDS ?? 3);
const BACKLOG = Number(process.env.BENCH_SINKS_BACKLOG ?? 20_000);
const STORAGES = (process.env.BENCH_SINKS_STORAGE ?? 'memory,sqlite').split(',');
const AMQP_URL = process.env.AMQP_URL;
const NATS_URL = process.env.NATS_URL;
const BROKERS = (process.env.BENCH_SINKS_BROKERS ?? 'amqp,nats').split(',').filter((b) => (b === 'amqp' ? AMQP_URL : NATS_URL));
const CONCURRENCY = resolveWebhookOptions({}).concurrency;
const RUN = `b${Date.now().toString(36)}`;
const EXCHANGE = `parley.bench.${RUN}`;
const STREAM = `PARLEY_BENCH_${RUN}`;
const PREFIX = `parleybench_${RUN}`;

const now = () => performance.now();
const dir = mkdtempSync(join(tmpdir(), 'parley-bench-sinks-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const fixture = webhookEventFixtures();
const textFixture = fixture.events['message-text'];
if (textFixture.type !== 'message') throw new Error('fixture message-text is not a message');
const textMessage = textFixture.message;
const format = new NativeFormat();
const renderContext = { instance: fixture.instance, mainChannel: 'whatsapp', serviceTag: 'parley', mediaUrl: (id: string) => `https://parley.example/{key}/message/${id}/media` };

if (BROKERS.length === 0) {
  console.error('bench/sinks: set AMQP_URL and/or NATS_URL');
  process.exit(1);
}

function textEvent(instanceId: string, n: number): ChannelEvent {
  return {
    type: 'message', provider: 'whatsapp', id: newUlid(Date.now()), instance: instanceId, receivedAt: Date.now(),
    message: { ...textMessage, id: `3EB0BENCH${String(n).padStart(12, '0')}`, content: { type: 'text', body: `benchmark message ${n}` } },
  };
}

/** A sink of `broker` reaching it at `url`, with the run's exchange or stream. */
function sinkOf(broker: string, url: string): Sink {
  return broker === 'amqp'
    ? new AmqpSink({ url, exchange: EXCHANGE, publishTimeoutMs: 5_000, connectTimeoutMs: 2_000, heartbeatSeconds: 30 }, silentLogger)
    : new NatsSink({ servers: [url], stream: STREAM, subjectPrefix: PREFIX, duplicateWindowMs: 120_000, maxAgeMs: 600_000, publishTimeoutMs: 5_000, connectTimeoutMs: 2_000 }, silentLogger);
}

/** Calls `confirmed` with the number of messages the sink confirmed, after each publish: the benchmark's finish line. */
function counting(sink: Sink, confirmed: (count: number) => void): Sink {
  return {
    name: sink.name, start: () => sink.start(), health: () => sink.health(), stop: () => sink.stop(),
    onReconnect: (listener) => sink.onReconnect?.(listener),
    publish: async (message, signal) => {
      await sink.publish(message, signal);
      confirmed(1);
    },
    publishBatch: async (messages, signal) => {
      const result = await sink.publishBatch!(messages, signal);
      confirmed(result.confirmed);
      return result;
    },
  };
}

/** Resolves when `count` confirms were counted. */
function finishLine(count: number): { confirmed: (n: number) => void; reached: Promise<void> } {
  let seen = 0;
  let done!: () => void;
  const reached = new Promise<void>((resolve) => (done = resolve));
  return { confirmed: (n) => { seen += n; if (seen >= count) done(); }, reached };
}

async function openStorage(kind: string): Promise<Storage> {
  const storage = kind === 'sqlite' ? new SqliteStorage({ file: join(dir, `bench-${newSecret(6)}.sqlite`) }) : new MemoryStorage();
  await storage.init();
  return storage;
}

async function instancesOn(storage: Storage, broker: string): Promise<InstanceRecord[]> {
  const out: InstanceRecord[] = [];
  for (let i = 0; i < LANES; i++) {
    const record: InstanceRecord = {
      ...fixture.instance, id: `ins_bench_${newSecret(6)}_${i}`, key: newSecret(), webhook: { ...fixture.instance.webhook, allowWebhook: false }, 
      sinks: { [broker]: { enabled: true, format: 'native', events: null } },
    };
    await storage.instances.create(record);
    out.push(record);
  }
  return out;
}

function engineOn(storage: Storage, sink: Sink, options: WebhookOptionsInput = {}): WebhookEngine {
  return new WebhookEngine({
    storage, formats: [format], sinks: [sink], logger: silentLogger, clock: { now: () => Date.now() },
    host: { dataDir: dir, publicUrl: 'https://parley.example', allowPrivateUrls: true }, channels: shippedChannelDirectory(), options,
    // As the server runs it: each event is logged in the same write as its deliveries.
    logEvents: true,
  });
}

/** Hands `count` events to the engine, one chain per instance, all instances at once. */
async function handAll(engine: WebhookEngine, instances: InstanceRecord[], count: number): Promise<void> {
  await Promise.all(instances.map(async (instance, lane) => {
    for (let n = lane; n < count; n += instances.length) await engine.handle(textEvent(instance.id, n), instance);
  }));
}

/** Parley: N events through the outbox to the broker; answers events/s and CPU µs per event. */
async function parley(broker: string, url: string, kind: string): Promise<{ rate: number; cpuUs: number }> {
  const storage = await openStorage(kind);
  const instances = await instancesOn(storage, broker);
  const line = finishLine(N);
  const sink = sinkOf(broker, url);
  await sink.start(); // connected before the clock starts, as a running server's sink is
  const engine = engineOn(storage, counting(sink, line.confirmed));
  engine.start();
  const cpu = process.cpuUsage();
  const started = now();
  await handAll(engine, instances, N);
  await line.reached;
  const seconds = (now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await engine.stop();
  await storage.close();
  return { rate: Math.round(N / seconds), cpuUs: Math.round((used.user + used.system) / N)};
}

/** The same bodies, topics and ids as Parley would publish, rendered ahead of the clock. */
function payloads(round: string): { id: string; instance: string; body: string }[] {
  return Array.from({ length: N }, (_, n) => {
    const event = textEvent(`ins_bench_bare_${n % LANES}`, n);
    return { id: `${event.id}_${round}`, instance: event.instance, body: JSON.stringify(format.render(event, renderContext)) };
  });
}

/** The ceiling: a bare client loop publishing with confirms, CONCURRENCY in flight. */
async function bare(broker: string, url: string, round: string): Promise<{ rate: number; cpuUs: number }> {
  const items = payloads(round);
  let next = 0;
  let publish: (item: (typeof items)[number]) => Promise<unknown>;
  let close: () => Promise<void>;
  if (broker === 'amqp') {
    const model = await amqpConnect(url);
    const channel = await model.createConfirmChannel();
    await channel.assertExchange(EXCHANGE, 'topic', { durable: true });
    publish = (item) => new Promise<void>((resolve, reject) => {
      channel.publish(EXCHANGE, `${item.instance}.messages.message`, Buffer.from(item.body), {
        persistent: true, messageId: item.id, contentType: 'application/json', type: 'messages.message',
        headers: { 'parley-instance': item.instance, 'parley-format': 'native' },
      }, (err: unknown) => (err ? reject(err as Error) : resolve()));
    });
    close = () => model.close();
  } else {
    const nc = await natsConnect({ servers: url });
    const js = nc.jetstream();
    publish = (item) => {
      const h = natsHeaders();
      h.set('Content-Type', 'application/json');
      h.set('Parley-Format', 'native');
      return js.publish(`${PREFIX}.${item.instance}.messages.message`, Buffer.from(item.body), { msgID: item.id, expect: { streamName: STREAM }, headers: h });
    };
    close = () => nc.close();
  }
  const cpu = process.cpuUsage();
  const started = now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < items.length) await publish(items[next++]!);
  }));
  const seconds = (now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await close();
  return { rate: Math.round(N / seconds), cpuUs: Math.round((used.user + used.system) / N) };
}

/** Backlog: the broker cut off, BACKLOG events queued in SQLite, then the broker back: drain rate. */
async function backlog(broker: string, url: string): Promise<{ enqueueRate: number; drainRate: number; drainSeconds: number }> {
  const address = new URL(url);
  const proxy = new TcpProxy(address.hostname, Number(address.port));
  await proxy.start();
  const viaProxy = new URL(url);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  await proxy.cut();
  const storage = await openStorage('sqlite');
  const instances = await instancesOn(storage, broker);
  const line = finishLine(BACKLOG);
  // Failed heads retry every 200 ms, never dead-lettered during the outage.
  const engine = engineOn(storage, counting(sinkOf(broker, viaProxy.href.replace(/\/$/, '')), line.confirmed), { retry: { schedule: Array.from({ length: 100 }, () => 200), jitter: 0 } });
  engine.start();
  const started = now();
  await handAll(engine, instances, BACKLOG);
  const enqueueRate = Math.round(BACKLOG / ((now() - started) / 1000));
  const restored = now();
  await proxy.restore();
  await line.reached;
  const drainSeconds = (now() - restored) / 1000;
  await engine.stop();
  await storage.close();
  await proxy.cut();
  return { enqueueRate, drainRate: Math.round(BACKLOG / drainSeconds), drainSeconds: Math.round(drainSeconds * 10) / 10 };
}

const date = new Date().toISOString().slice(0, 10);
console.log(`\n### bench/sinks — ${date}, ${machine()}; ${N} events over ${LANES} instances (lanes), worker concurrency ${CONCURRENCY}, native format, ${ROUNDS} rounds\n`);
const readers = [
  ...(BROKERS.includes('amqp') ? [await amqpReader(AMQP_URL!, EXCHANGE)] : []),
  ...(BROKERS.includes('nats') ? [await natsReader(NATS_URL!, STREAM, PREFIX)] : []),
];
const rows: (string | number)[][] = [];
const median = (values: number[]) => percentile(values, 50);
try {
  for (const broker of BROKERS) {
    const url = broker === 'amqp' ? AMQP_URL! : NATS_URL!;
    await bare(broker, url, 'warmup');
    for (const kind of STORAGES) {
      const pairs: { engine: { rate: number; cpuUs: number }; bare: { rate: number; cpuUs: number } }[] = [];
      for (let r = 0; r < ROUNDS; r++) pairs.push({ engine: await parley(broker, url, kind), bare: await bare(broker, url, `${kind}${r}`) });
      const of = (pick: (pair: (typeof pairs)[number]) => number) => median(pairs.map(pick));
      rows.push([
        broker, kind, of((p) => p.engine.rate), of((p) => p.bare.rate), `${Math.round(of((p) => p.engine.rate / p.bare.rate) * 100)}%`,
        of((p) => p.engine.cpuUs), of((p) => p.bare.cpuUs), pairs.map((p) => `${Math.round((p.engine.rate / p.bare.rate) * 100)}%`).join(' '),
      ]);
    }
  }
  console.log(table(['broker', 'storage', 'Parley events/s', 'bare client events/s', 'Parley / bare', 'Parley CPU µs/event', 'bare CPU µs/event', 'per round'], rows));
  if (BACKLOG > 0) {
    const drains: (string | number)[][] = [];
    for (const broker of BROKERS) {
      const result = await backlog(broker, broker === 'amqp' ? AMQP_URL! : NATS_URL!);
      drains.push([broker, BACKLOG, result.enqueueRate, result.drainSeconds, result.drainRate]);
    }
    console.log(`\nBacklog (SQLite): broker unreachable while ${BACKLOG} events are queued, then restored\n`);
    console.log(table(['broker', 'events', 'queued/s (broker down)', 'drain s', 'drained events/s'], drains));
  }
} finally {
  await Promise.all(readers.map((r) => r.close().catch(() => undefined)));
  if (BROKERS.includes('amqp')) await deleteAmqpExchange(AMQP_URL!, EXCHANGE).catch(() => undefined);
  if (BROKERS.includes('nats')) await deleteNatsStream(NATS_URL!, STREAM);
}
