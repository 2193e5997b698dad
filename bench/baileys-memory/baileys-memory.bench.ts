/**
 * bench/baileys-memory: memory of the WhatsApp main channel (@parley/channel-baileys).
 *
 * - `adapters`: 1, 50 and 200 adapters over fake sockets (`@parley/channel-baileys/testing`), each
 *   with a MemoryStorage-backed ChannelContext, fed a steady stream of Baileys events (messages of
 *   several kinds, statuses, receipts, presences) spread over the adapters. Measures the idle memory
 *   per adapter and the heap/RSS growth per message after full GCs.
 * - `receive`: Baileys' own receive path on one adapter: 20 peers send Signal-encrypted stanzas that
 *   Baileys decodes (binary nodes), decrypts (libsignal over the adapter's auth state), caches
 *   (retry manager), buffers and processes (`processMessage`) before the adapter maps them.
 *
 * Events the adapters emit are counted and dropped: the server's store projector would keep every
 * message in the storage back end (by design, not a leak), which would hide the channel's own memory.
 *
 * Run: `npx tsc -b bench && node bench/dist/baileys-memory/baileys-memory.bench.js`. The script runs
 * each scenario in a fresh `node --expose-gc` child of itself: 2,000 warm-up messages (bounded caches
 * fill up), then two runs of BENCH_BAILEYS_MESSAGES (default 20000) messages, measured after each;
 * BENCH_BAILEYS_ADAPTERS (default 1,50,200).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createBaileysDriver, type BaileysAdapter } from '@parley/channel-baileys';
import { FakeSockets, ReceivePath, type FakeSocket } from '@parley/channel-baileys/testing';
import { defaultInstanceFlags, defaultWebhookSettings, type ChannelContext, type InstanceRecord, type Logger } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { machine, table } from '../support/measure.js';

const MESSAGES = Number(process.env.BENCH_BAILEYS_MESSAGES ?? 20_000);
const ADAPTERS = (process.env.BENCH_BAILEYS_ADAPTERS ?? '1,50,200').split(',').map(Number);
/** Messages fed before the baseline of the run, so caches that fill up to a bound are full. */
const WARMUP = 2_000;
/** The adapters' event queues are drained every this many messages (a live socket is as steady). */
const DRAIN_EVERY = 500;
const T = 1_735_700_000;

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

interface Result {
  scenario: string;
  adapters: number;
  base: Memory;
  idle: Memory;
  warm: Memory;
  /** After the first and the second run of `messages`. */
  first: Memory;
  after: Memory;
  messages: number;
  events: number;
  seconds: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Memory after full collections (finalizers and weak references get a turn in between). */
async function settledMemory(): Promise<Memory> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external };
}

const quiet: Logger = { child: () => quiet, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

function instance(id: string): InstanceRecord {
  return {
    id, key: `key-${id}`, name: id, driver: 'whatsapp', createdAt: T * 1000, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(),
    webhookSecret: `whsec_${id}`, user: null, phoneConnected: false, wantsConnection: true, health: 'healthy', driverOptions: {}, links: {},
  };
}

/** A MemoryStorage, a driver over fake sockets, and connected adapters counting what they emit. */
class Fleet {
  readonly storage = new MemoryStorage();
  readonly sockets = new FakeSockets();
  readonly adapters: BaileysAdapter[] = [];
  readonly open: FakeSocket[] = [];
  events = 0;
  private readonly driver = createBaileysDriver({ socketFactory: this.sockets.factory, qrImage: async () => '' });

  async add(index: number): Promise<FakeSocket> {
    const id = index < 0 ? 'ins_bench_primer' : `ins_bench_${String(index).padStart(4, '0')}`;
    await this.storage.instances.create(instance(id));
    const context: ChannelContext = {
      instanceId: id,
      instance: async () => (await this.storage.instances.get(id))!,
      emit: () => { this.events += 1; },
      storage: this.storage,
      logger: quiet,
    };
    const adapter = (await this.driver.create(context)) as BaileysAdapter;
    const connecting = adapter.capabilities.connection!.connect();
    const socket = await this.sockets.next(this.sockets.all.length + 1);
    const number = String(5511900000000 + index);
    socket.open({ id: `${number}:3@s.whatsapp.net`, lid: `${80000000000000 + index}:3@lid`, name: `Bench ${index}` });
    await connecting;
    this.adapters.push(adapter);
    this.open.push(socket);
    return socket;
  }

  idle(): Promise<unknown> {
    return Promise.all(this.adapters.map((a) => a.idle()));
  }
}

const PEERS = 50;
const THUMBNAIL = Buffer.alloc(2_048, 7);
const peer = (i: number) => `${5511980000000 + (i % PEERS)}@s.whatsapp.net`;

/** The `i`-th event of the stream, on `socket`: mostly messages of several kinds, some statuses, receipts and presences. */
function feed(socket: FakeSocket, i: number): void {
  const id = `BENCH${String(i).padStart(12, '0')}`;
  const from = peer(i);
  const ts = T + i;
  const upsert = (message: Record<string, unknown>, key: Record<string, unknown> = { remoteJid: from, fromMe: false, id }) =>
    socket.emit('messages.upsert', { messages: [{ key, message, messageTimestamp: ts, pushName: `Peer ${i % PEERS}` }], type: 'notify' });
  switch (i % 20) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7:
      return upsert({ conversation: `message ${i} with some text to map` });
    case 8: case 9: case 10:
      return upsert({ extendedTextMessage: { text: `reply ${i}`, contextInfo: { stanzaId: `BENCH${i - 1}`, participant: from, quotedMessage: { conversation: 'quoted' } } } });
    case 11: case 12:
      return upsert({
        imageMessage: {
          url: 'https://mmg.whatsapp.net/v/t62/x.enc', directPath: '/v/t62/x.enc', mimetype: 'image/jpeg', caption: `photo ${i}`, jpegThumbnail: THUMBNAIL,
          fileSha256: Buffer.alloc(32, i % 256), fileEncSha256: Buffer.alloc(32, 1), mediaKey: Buffer.alloc(32, 2), fileLength: 90_000,
        },
      });
    case 13: case 14:
      return upsert({ conversation: `group ${i}` }, { remoteJid: '120363025246125486@g.us', fromMe: false, id, participant: from });
    case 15:
      return upsert({ reactionMessage: { key: { remoteJid: from, fromMe: true, id: `SENT${i}` }, text: '👍', senderTimestampMs: ts * 1000 } });
    case 16: case 17:
      // Status of a message the instance sent (proto status 2 = SERVER_ACK, 3 = DELIVERY_ACK).
      return socket.emit('messages.update', [{ key: { remoteJid: from, fromMe: true, id: `SENT${i}` }, update: { status: 2 + (i % 2) } }]);
    case 18:
      return socket.emit('message-receipt.update', [{
        key: { remoteJid: '120363025246125486@g.us', fromMe: true, id: `SENT${i}` }, receipt: { userJid: from, readTimestamp: ts },
      }]);
    default:
      return socket.emit('presence.update', { id: from, presences: { [from]: { lastKnownPresence: 'composing' } } });
  }
}

async function stream(fleet: Fleet, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    feed(fleet.open[i % fleet.open.length]!, i);
    if ((i + 1) % DRAIN_EVERY === 0) await fleet.idle();
  }
  await fleet.idle();
}

async function adaptersScenario(count: number): Promise<Result> {
  const fleet = new Fleet();
  await fleet.storage.init();
  // One adapter before the baseline loads what the first one initialises lazily (libsignal, protobuf roots).
  await fleet.add(-1);
  const base = await settledMemory();
  for (let i = 0; i < count; i++) await fleet.add(i);
  const idle = await settledMemory();
  await stream(fleet, 0, WARMUP);
  const warm = await settledMemory();
  const started = process.hrtime.bigint();
  await stream(fleet, WARMUP, MESSAGES);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const first = await settledMemory();
  await stream(fleet, WARMUP + MESSAGES, MESSAGES);
  const after = await settledMemory();
  for (const adapter of fleet.adapters) await adapter.stop();
  return { scenario: 'adapters', adapters: count, base, idle, warm, first, after, messages: MESSAGES, events: fleet.events, seconds };
}

async function receiveScenario(): Promise<Result> {
  const fleet = new Fleet();
  await fleet.storage.init();
  await fleet.add(-1);
  const base = await settledMemory();
  const socket = await fleet.add(0);
  const peers = Array.from({ length: 20 }, (_, i) => `${5511970000000 + i}@s.whatsapp.net`);
  const path = await ReceivePath.create(socket, peers);
  const idle = await settledMemory();
  const receive = async (from: number, count: number) => {
    for (let i = from; i < from + count; i++) {
      const body = i % 5 === 4
        ? { extendedTextMessage: { text: `reply ${i}`, contextInfo: { stanzaId: `RECV${i - 1}`, participant: peers[i % 20]!, quotedMessage: { conversation: 'quoted' } } } }
        : { conversation: `message ${i} with some text to decrypt and map` };
      await path.receive(peers[i % 20]!, body, { id: `RECV${String(i).padStart(12, '0')}`, timestamp: T + i, pushName: `Peer ${i % 20}` });
      if ((i + 1) % DRAIN_EVERY === 0) await fleet.idle();
    }
    await fleet.idle();
  };
  await receive(0, WARMUP);
  const warm = await settledMemory();
  const started = process.hrtime.bigint();
  await receive(WARMUP, MESSAGES);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const first = await settledMemory();
  await receive(WARMUP + MESSAGES, MESSAGES);
  const after = await settledMemory();
  for (const adapter of fleet.adapters) await adapter.stop();
  return { scenario: 'receive', adapters: 1, base, idle, warm, first, after, messages: MESSAGES, events: fleet.events, seconds };
}

const MiB = 1_048_576;
const mib = (bytes: number) => (bytes / MiB).toFixed(2);
const perMessage = (bytes: number) => `${Math.round(bytes)} B`;

function row(r: Result): (string | number)[] {
  const n = r.adapters;
  return [
    r.scenario === 'adapters' ? `${n} adapter${n === 1 ? '' : 's'}` : "1 adapter, Baileys' receive path (20 peers)",
    mib((r.idle.rss - r.base.rss) / n), mib((r.idle.heapUsed - r.base.heapUsed) / n), mib(r.after.rss),
    `${perMessage((r.first.heapUsed - r.warm.heapUsed) / r.messages)} / ${perMessage((r.after.heapUsed - r.first.heapUsed) / r.messages)}`,
    `${perMessage((r.first.rss - r.warm.rss) / r.messages)} / ${perMessage((r.after.rss - r.first.rss) / r.messages)}`,
    `${perMessage((r.first.external - r.warm.external) / r.messages)} / ${perMessage((r.after.external - r.first.external) / r.messages)}`,
    r.events, Math.round(r.messages / r.seconds),
  ];
}

if (process.argv[2] === '--child') {
  if (!gc) throw new Error('run with --expose-gc');
  const result = process.argv[3] === 'receive' ? await receiveScenario() : await adaptersScenario(Number(process.argv[4]));
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const self = fileURLToPath(import.meta.url);
  const runs: string[][] = [...ADAPTERS.map((n) => ['adapters', String(n)]), ['receive', '1']];
  const rows: (string | number)[][] = [];
  for (const args of runs) {
    const child = spawnSync(process.execPath, ['--expose-gc', self, '--child', ...args], { encoding: 'utf8', maxBuffer: 16 * MiB });
    if (child.status !== 0) throw new Error(`scenario ${args.join(' ')} failed: ${child.stderr}`);
    const result = JSON.parse(child.stdout.trim().split('\n').pop()!) as Result;
    console.error(JSON.stringify(result));
    rows.push(row(result));
  }
  console.log(`\n### bench/baileys-memory — ${machine()}, ${WARMUP} warm-up messages, then two runs of ${MESSAGES}; figures after full GCs\n`);
  console.log(table([
    'run', 'idle RSS / adapter (MiB)', 'idle heap / adapter (MiB)', 'RSS at end (MiB)', 'heap growth / message (run 1 / run 2)',
    'RSS growth / message (run 1 / run 2)', 'external growth / message (run 1 / run 2)', 'events emitted', 'messages/s (run 1)',
  ], rows));
}
