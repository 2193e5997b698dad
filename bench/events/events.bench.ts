/**
 * bench/events: the live event streams (`GET /{key}/events`) of a real Parley server (memory storage,
 * native format) beside its webhook engine, in the same run. Every round publishes N `message`
 * events through the server's event bus (store projector, webhook engine, event log, fan-out: the
 * path every channel event takes) and times until they arrived:
 * - webhook: the instance's webhook points at a local keep-alive receiver (bench/webhooks/receiver.ts,
 *   own process): deliveries/s;
 * - sse ×1: no webhook, one SSE client: events/s;
 * - sse ×1000: no webhook, 1,000 SSE clients of the same instance: events/s (each delivered 1,000
 *   times) and frames/s.
 * Rounds alternate (webhook, ×1, ×1000) `BENCH_EVENTS_ROUNDS` times; each figure is the median round,
 * each ratio the median of the per-round ratios against the webhook round. The SSE clients run in
 * their own process (sse-clients.ts). Memory per connected client: the server process's heap and RSS
 * after a full GC with 1,000 idle clients connected, minus before, divided by 1,000.
 *
 * Run: `npx tsc -b bench` then `node --expose-gc bench/dist/events/events.bench.js`
 * Env: BENCH_EVENTS_N (events per round, default 2000), BENCH_EVENTS_CLIENTS (1000), BENCH_EVENTS_ROUNDS (3).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@parley/core';
import { createLogger } from '@parley/server';
import { startTestHost, type TestHost } from '@parley/testkit/host';
import { webhookEventFixtures } from '@parley/testkit';
import { machine, rssMiB, table } from '../support/measure.js';

const N = Number(process.env.BENCH_EVENTS_N ?? 2_000);
const CLIENTS = Number(process.env.BENCH_EVENTS_CLIENTS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_EVENTS_ROUNDS ?? 3);
const now = () => performance.now();
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const heapMiB = () => process.memoryUsage().heapUsed / 1048576;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A forked helper process answering IPC commands (the receiver, the SSE clients). */
class Helper {
  private constructor(private readonly child: ChildProcess) {}

  static async fork(file: string): Promise<{ helper: Helper; first: Record<string, unknown> }> {
    const child = fork(fileURLToPath(new URL(file, import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const helper = new Helper(child);
    return { helper, first: file.includes('receiver') ? await helper.next('listening') : {} };
  }

  next<T = Record<string, unknown>>(cmd: string): Promise<T> {
    return new Promise((resolve) => {
      const on = (message: { cmd: string }) => {
        if (message.cmd !== cmd) return;
        this.child.off('message', on);
        resolve(message as T);
      };
      this.child.on('message', on);
    });
  }

  async ask(message: Record<string, unknown>, answer: string): Promise<void> {
    const done = this.next(answer);
    this.child.send(message);
    await done;
  }

  send(message: Record<string, unknown>): void {
    this.child.send(message);
  }

  stop(): void {
    this.child.kill();
  }
}

const { helper: receiver, first } = await Helper.fork('../webhooks/receiver.js');
const receiverUrl = `http://127.0.0.1:${(first as { port: number }).port}`;
const { helper: clients } = await Helper.fork('./sse-clients.js');
const silent = createLogger({ level: 'silent' }) as unknown as Logger;
const host: TestHost = await startTestHost({
  plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' }],
  config: { streams: { retentionSeconds: 3600, heartbeatSeconds: 15, maxPerInstance: CLIENTS + 1, maxTotal: CLIENTS + 1, bufferBytes: 4 * 1024 * 1024 } },
  logger: silent,
});
const { bus } = host.server.context;
const created = await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'bench' } });
const { id, key } = created.data as { id: string; key: string };
const api = host.client.instance(key);
const fixture = webhookEventFixtures().events['message-text'];
if (fixture.type !== 'message') throw new Error('fixture message-text is not a message');
const message = fixture.message;

/** Points the instance's webhook at the receiver, or turns it off. */
async function webhook(on: boolean): Promise<void> {
  const res = await api.call('updateWebhookSettings', { body: { allowWebhook: on, webhookMessage: on ? `${receiverUrl}/hook` : '', webhookFormat: 'native' } });
  if (res.status !== 200) throw new Error(`webhook settings answered ${res.status}`);
}

interface Round {
  /** Events per second. */
  rate: number;
  /** CPU time of the server process per event (user + system, µs): steadier than rates on a shared machine. */
  cpuUs: number;
}

/** Publishes N message events through the bus; times them until `arrived` resolved. */
async function round(arrived: Promise<unknown>, seq: number): Promise<Round> {
  const cpu = process.cpuUsage();
  const started = now();
  for (let n = 0; n < N; n++) {
    bus.publish(id, 'whatsapp', { type: 'message', message: { ...message, id: `3EB0B${seq}${String(n).padStart(10, '0')}`, content: { type: 'text', body: `bench ${n}` } } } as never);
    // Let the bus breathe every 100 events, as events arrive from sockets, not from one loop.
    if (n % 100 === 99) await new Promise((r) => setImmediate(r));
  }
  await arrived;
  const seconds = (now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { rate: N / seconds, cpuUs: (used.user + used.system) / N };
}

const rows: { webhook: Round; one: Round; many: Round }[] = [];
let seq = 0;
for (let r = 0; r < ROUNDS; r++) {
  await webhook(true);
  receiver.send({ cmd: 'reset' });
  const hooks = receiver.ask({ cmd: 'expect', count: N }, 'reached');
  const webhookRound = await round(hooks, seq++);
  await bus.drain();
  await webhook(false);

  await clients.ask({ cmd: 'open', url: `${host.url}/${key}/events`, count: 1 }, 'opened');
  const oneRound = await round(clients.ask({ cmd: 'expect', frames: N }, 'reached'), seq++);
  await clients.ask({ cmd: 'close' }, 'closed');

  await clients.ask({ cmd: 'open', url: `${host.url}/${key}/events`, count: CLIENTS }, 'opened');
  const manyRound = await round(clients.ask({ cmd: 'expect', frames: N }, 'reached'), seq++);
  await clients.ask({ cmd: 'close' }, 'closed');
  rows.push({ webhook: webhookRound, one: oneRound, many: manyRound });
  console.log(`round ${r + 1}: webhook ${Math.round(webhookRound.rate)}/s, sse x1 ${Math.round(oneRound.rate)}/s, sse x${CLIENTS} ${Math.round(manyRound.rate)} events/s`);
}

// Memory per connected client, in the server process (the clients live in their own).
await new Promise((r) => setTimeout(r, 500));
gc();
const heapBefore = heapMiB();
const rssBefore = rssMiB();
await clients.ask({ cmd: 'open', url: `${host.url}/${key}/events`, count: CLIENTS }, 'opened');
await new Promise((r) => setTimeout(r, 500));
gc();
const heapPer = ((heapMiB() - heapBefore) * 1048576) / CLIENTS;
const rssPer = ((rssMiB() - rssBefore) * 1048576) / CLIENTS;
await clients.ask({ cmd: 'close' }, 'closed');

const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
console.log(`\n### bench/events — ${date}, ${machine()}; ${N} events per round, ${ROUNDS} rounds (medians), memory storage, native format\n`);
const line = (label: string, pick: (x: (typeof rows)[number]) => Round, fanout: number) => [
  label, Math.round(median(rows.map((x) => pick(x).rate))), `${Math.round(median(rows.map((x) => (pick(x).rate / x.webhook.rate) * 100)))}%`,
  Math.round(median(rows.map((x) => pick(x).rate)) * fanout), Math.round(median(rows.map((x) => pick(x).cpuUs))),
  `${Math.round(median(rows.map((x) => (pick(x).cpuUs / x.webhook.cpuUs) * 100)))}%`,
];
console.log(table(
  ['path', 'events/s', 'vs webhook engine', 'deliveries (frames) /s', 'server CPU µs/event', 'CPU vs webhook engine'],
  [line('webhook engine (1 receiver)', (x) => x.webhook, 1), line('SSE, 1 client', (x) => x.one, 1), line(`SSE, ${CLIENTS} clients`, (x) => x.many, CLIENTS)],
));
console.log(`\nMemory per connected idle client (server process, after GC): heap ${(heapPer / 1024).toFixed(1)} KiB, RSS ${(rssPer / 1024).toFixed(1)} KiB`);

await host.stop();
receiver.stop();
clients.stop();
