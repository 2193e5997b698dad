import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  newSecret, newUlid, type ChannelEvent, type Clock, type InboundMessage, type InstanceRecord, type Logger, type Storage, type WebhookSettings,
} from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { SqliteStorage } from '@parley/storage-sqlite';
import { shippedChannelDirectory, webhookEventFixtures, type ReceivedRequest } from '@parley/testkit';
import { MetaFormat } from '@parley/webhook-meta';
import { NativeFormat } from '@parley/webhook-native';
import { newWebhookSecret, WebhookEngine, type WebhookOptionsInput } from '../../src/index.js';

/** A storage back end under test. */
export interface Backend {
  name: string;
  open(): Promise<Storage>;
}

/** The two real back ends the engine is tested on; sqlite files go to one temp dir removed at exit. */
export function backends(): Backend[] {
  let dir: string | undefined;
  const file = () => {
    if (!dir) {
      const created = mkdtempSync(join(tmpdir(), 'parley-webhooks-'));
      process.once('exit', () => rmSync(created, { recursive: true, force: true }));
      dir = created;
    }
    return join(dir, `${newUlid(Date.now())}.sqlite`);
  };
  return [
    { name: 'memory', open: async () => initialized(new MemoryStorage()) },
    { name: 'sqlite', open: async () => initialized(new SqliteStorage({ file: file() })) },
  ];
}

export async function initialized<S extends Storage>(storage: S): Promise<S> {
  await storage.init();
  return storage;
}

/** One log line as the engine wrote it. */
export interface LogEntry {
  level: string;
  bindings: Record<string, unknown>;
  obj: unknown;
  msg?: string;
}

/** A logger that records every line (tests check that no secret is ever logged). */
export function recordingLogger(entries: LogEntry[] = [], bindings: Record<string, unknown> = {}): Logger & { entries: LogEntry[] } {
  const log = (level: string) => (obj: unknown, msg?: string) => {
    entries.push({ level, bindings, obj, ...(msg === undefined ? {} : { msg }) });
  };
  return {
    entries,
    child: (more) => recordingLogger(entries, { ...bindings, ...more }),
    trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error'), fatal: log('fatal'),
  };
}

/** Engine options for tests: short schedule, no jitter, quick housekeeping. */
export const TEST_OPTIONS: WebhookOptionsInput = {
  timeoutMs: 500,
  leaseMs: 1_600,
  stopTimeoutMs: 2_000,
  retry: { schedule: [20, 40, 60, 80, 100], jitter: 0, maxRetryAfterMs: 5_000 },
  housekeeping: { sweepCron: '*/10 * * * * *', purgeCron: '0 0 * * *', deadLetterRetentionMs: 7 * 24 * 3_600_000 },
};

/** Creates an engine over `storage` with both formats. */
export function engineFor(
  storage: Storage,
  options: WebhookOptionsInput = {},
  extra: { allowPrivateUrls?: boolean; clock?: Clock; logger?: Logger; logEvents?: boolean } = {},
): WebhookEngine {
  return new WebhookEngine({
    storage,
    ...(extra.logEvents ? { logEvents: true } : {}),
    formats: [new NativeFormat(), new MetaFormat()],
    logger: extra.logger ?? recordingLogger(),
    clock: extra.clock ?? { now: () => Date.now() },
    host: { dataDir: tmpdir(), publicUrl: 'https://parley.example/', allowPrivateUrls: extra.allowPrivateUrls ?? true },
    channels: shippedChannelDirectory(),
    options: { ...TEST_OPTIONS, ...options, retry: { ...TEST_OPTIONS.retry, ...options.retry }, housekeeping: { ...TEST_OPTIONS.housekeeping, ...options.housekeeping } },
  });
}

/** Stores a fresh instance (unique id, key and secret) with the given webhook settings. */
export async function createInstance(storage: Storage, webhook: Partial<WebhookSettings>): Promise<InstanceRecord> {
  const base = webhookEventFixtures().instance;
  const instance: InstanceRecord = {
    ...base,
    id: `ins_${newUlid(Date.now())}`,
    key: newSecret(),
    webhookSecret: newWebhookSecret(),
    webhook: { ...base.webhook, allowWebhook: true, webhookFormat: 'native', ...webhook },
  };
  await storage.instances.create(instance);
  return instance;
}

/** Re-stamps a fixture event for `instance` with a fresh event id. */
export function eventFor<E extends ChannelEvent>(instance: InstanceRecord, event: E): E {
  return { ...event, id: newUlid(Date.now()), instance: instance.id };
}

/** A text message event number `n` from the fixtures' peer. */
export function textEvent(instance: InstanceRecord, n: number, changes: Partial<InboundMessage> = {}): ChannelEvent {
  const fixture = webhookEventFixtures().events['message-text'];
  if (fixture.type !== 'message') throw new Error('fixture is not a message');
  return eventFor(instance, { ...fixture, message: { ...fixture.message, id: `3EB0TEST${String(n).padStart(8, '0')}`, content: { type: 'text', body: `message ${n}` }, ...changes } });
}

/**
 * Verifies a request's Standard Webhooks signature with an independent implementation of the spec:
 * key = base64 after `whsec_`, HMAC-SHA256 over `{id}.{timestamp}.{body}`, header `v1,<base64>`.
 */
export function assertStandardSignature(request: ReceivedRequest, secret: string): void {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  assert.equal(typeof id, 'string');
  assert.match(String(timestamp), /^\d+$/);
  assert.ok(Math.abs(Number(timestamp) - Date.now() / 1_000) < 300, 'webhook-timestamp is not current');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${String(id)}.${String(timestamp)}.${request.body}`).digest('base64');
  assert.equal(request.headers['webhook-signature'], `v1,${expected}`);
}

/** Verifies the meta format's `X-Hub-Signature-256` over the exact body. */
export function assertHubSignature(request: ReceivedRequest, secret: string): void {
  const expected = createHmac('sha256', secret).update(request.body).digest('hex');
  assert.equal(request.headers['x-hub-signature-256'], `sha256=${expected}`);
}

/** Polls `read` until `done` holds (bounded: fails after `timeoutMs`). */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`condition not reached within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A gate a responder awaits: requests stay unanswered until `open()`. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}
