import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { ChannelEvent, Clock, Logger } from '@parley/core';
import { createLogger, type ParleyConfig, type ParleyServer, type PluginEntry } from '@parley/server';
import { startTestHost, type TestHost } from '@parley/testkit/host';
import { ParleyClient, type InstanceClient, type Operations } from '@parley/client';
import { deleteKeys } from '@parley/storage-redis/testing';
import { createTestDatabase } from '@parley/storage-postgres/testing';

/** An HTTP answer as tests see it. */
export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  raw: Buffer;
}

/** Webhook settings of `POST /admin/instances`. */
/** The `webhook` member of an admin create body. */
export type AdminWebhookSettings = NonNullable<Operations['adminCreateInstance']['body']>['webhook'];

/** Decodes an HTTP answer as tests see it: JSON answers parsed, others as text, the bytes kept. */
export async function testResponseOf<T = any>(res: Response): Promise<TestResponse<T>> {
  const raw = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  const parsed = type.includes('json') && raw.length ? JSON.parse(raw.toString('utf8')) : raw.toString('utf8');
  return { status: res.status, headers: res.headers, body: parsed as T, raw };
}

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /**
   * Storage plugin: `memory` (default), `sqlite`, `redis` (the Redis of `REDIS_URL`, under a key
   * prefix of its own that {@link TestServer.stop} deletes) or `postgres` (a database of its own on the
   * PostgreSQL of `DATABASE_URL`, which {@link TestServer.stop} drops); or a full plugin list.
   */
  storage?: 'memory' | 'sqlite' | 'redis' | 'postgres';
  plugins?: PluginEntry[];
  /** Plugins appended to the default list (event sinks). */
  extraPlugins?: PluginEntry[];
  /** Sandbox driver options (autoScanMs, latencyMs, …). */
  sandbox?: Record<string, unknown>;
  /** Reuse a data directory (restart tests). Created in the OS temp dir otherwise and removed on stop. */
  dataDir?: string;
  port?: number;
  config?: Partial<ParleyConfig>;
  /** Collect log lines (for redaction tests). */
  captureLogs?: boolean;
  /** The server's clock (a `FakeClock` of `@parley/testkit` to control time); the system clock by default. */
  clock?: Clock;
}

/** A running Parley server on 127.0.0.1 with helpers for tests. */
/**
 * Memory storage, both webhook formats and every channel plugin: a server whose document and routes
 * cover every operation, driver routes included.
 */
export const EVERY_CHANNEL_PLUGINS: PluginEntry[] = [
  { package: '@parley/storage-memory' }, { package: '@parley/webhook-native' }, { package: '@parley/webhook-meta' },
  { package: '@parley/channel-baileys' }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
  { package: '@parley/channel-instagram' }, { package: '@parley/channel-messenger' },
];

export class TestServer {
  readonly logs: string[] = [];
  readonly events: ChannelEvent[] = [];
  private untap?: () => void;

  readonly server: ParleyServer;
  readonly url: string;
  readonly dataDir: string;
  /** Runs after the server stopped (the Redis keys of `storage: 'redis'`, the database of `storage: 'postgres'`). */
  afterStop?: () => Promise<void>;

  constructor(readonly host: TestHost) {
    this.server = host.server;
    this.url = host.url;
    this.dataDir = host.dataDir;
    this.untap = host.server.context.bus.tap((e) => this.events.push(e));
  }

  /** The events of one type seen so far, typed as that event; only one instance's with `instance`. */
  eventsOfType<T extends ChannelEvent['type']>(type: T, instance?: string): Array<Extract<ChannelEvent, { type: T }>> {
    return this.events.filter((e): e is Extract<ChannelEvent, { type: T }> => e.type === type && (instance === undefined || e.instance === instance));
  }

  get adminToken(): string {
    return this.host.adminToken;
  }

  /** A real HTTP request; JSON bodies are encoded, JSON answers decoded. */
  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' || body instanceof Uint8Array ? (body as string) : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    return testResponseOf<T>(await fetch(`${this.url}${path}`, init));
  }

  /** The typed `@parley/client` for this server, with the admin token; with a key, scoped to that instance. */
  client(): ParleyClient;
  client(key: string): InstanceClient;
  client(key?: string): ParleyClient | InstanceClient {
    const client = new ParleyClient({ baseUrl: this.url, adminToken: this.adminToken });
    return key === undefined ? client : client.instance(key);
  }

  /** Same as {@link request} with the admin token. */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<TestResponse<T>> {
    return this.request<T>(method, path, body, { authorization: `Bearer ${this.adminToken}` });
  }

  /** Creates an instance through the admin API; answers the admin view (id, key, webhookSecret, …). */
  async createInstance(input: { channel?: string; name?: string; number?: string; webhook?: AdminWebhookSettings } = {}): Promise<{ id: string; key: string; webhookSecret: string; options: { number?: string } }> {
    const { number, ...rest } = input;
    const created = await this.client().call('adminCreateInstance', { body: { channel: 'sandbox', ...rest, ...(number ? { options: { number } } : {}) } });
    return created.data as typeof created.data & { options: { number?: string } };
  }

  /** Creates and connects a sandbox instance (QR shown, then scanned); a failing step throws its `ParleyApiError`. */
  async connectedSandbox(input: { name?: string; number?: string; webhook?: AdminWebhookSettings } = {}) {
    const instance = await this.createInstance({ channel: 'sandbox', ...input });
    const api = this.client(instance.key);
    await api.call('connectInstance');
    await api.call('sandbox_post_key_scan');
    await this.settle();
    return instance;
  }

  /** Waits until every event published so far is processed (stored, enqueued). */
  async settle(): Promise<void> {
    // Sandbox hops are scheduled with setImmediate/timers; let them run, then drain the bus.
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 5));
      await this.server.context.bus.drain();
    }
  }

  /** Polls `check` until it answers a truthy value (bounded). */
  async waitFor<T>(check: () => Promise<T> | T, timeoutMs = 5000, what = 'condition'): Promise<Exclude<T, undefined | null | false | 0 | ''>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value) return value as Exclude<T, undefined | null | false | 0 | ''>;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * Stops the server (graceful) and removes its data directory unless it was given. When the server
   * answered a status its route does not declare, the test file fails (exit code 1, the answers on
   * stderr): every e2e test checks that the OpenAPI document lists each status the server really
   * answered. Not thrown, so the caller's other clean-up still runs and the file does not hang.
   */
  async stop(): Promise<void> {
    this.untap?.();
    const undeclared = this.server.undeclaredAnswers();
    await this.host.stop();
    await this.afterStop?.();
    if (undeclared.length > 0) {
      console.error(`answers with a status the OpenAPI document does not list for their route: ${undeclared.join(', ')}`);
      process.exitCode = 1;
    }
  }
}

/** Starts the real server on 127.0.0.1 with the sandbox channel and the chosen storage, through `@parley/testkit/host`. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const storage = options.storage ?? 'memory';
  const redisUrl = process.env.REDIS_URL;
  if (storage === 'redis' && !options.plugins && !redisUrl) throw new Error('storage: redis needs REDIS_URL');
  if (storage === 'postgres' && !options.plugins && !process.env.DATABASE_URL) throw new Error('storage: postgres needs DATABASE_URL');
  const keyPrefix = `parley-e2e-${process.pid}-${randomBytes(4).toString('hex')}:`;
  const database = storage === 'postgres' && !options.plugins ? await createTestDatabase(process.env.DATABASE_URL!, 'e2e') : undefined;
  // A small pool on PostgreSQL: the machine's server takes 100 connections, shared by the test files running at once.
  const storagePlugin: PluginEntry = storage === 'redis' ? { package: '@parley/storage-redis', options: { url: redisUrl, keyPrefix } }
    : database ? { package: '@parley/storage-postgres', options: { url: database.url, poolSize: 4 } } : { package: `@parley/storage-${storage}` };
  const plugins = options.plugins ?? [
    storagePlugin,
    { package: '@parley/channel-sandbox', options: { autoScanMs: 0, ...(options.sandbox ?? {}) } },
    { package: '@parley/webhook-native' },
    { package: '@parley/webhook-meta' },
    ...(options.extraPlugins ?? []),
  ];
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      if (options.captureLogs) logs.push(chunk.toString());
      cb();
    },
  });
  const logger = createLogger({ level: options.captureLogs ? 'debug' : 'warn', destination }) as unknown as Logger;
  const host = await startTestHost({
    plugins, logger, ...(options.dataDir ? { dataDir: options.dataDir } : {}), ...(options.clock ? { clock: options.clock } : {}),
    config: { port: options.port ?? 0, defaultChannel: 'sandbox', logLevel: 'info', ...options.config },
  });
  const harness = new TestServer(host);
  if (storage === 'redis' && !options.plugins) harness.afterStop = () => deleteKeys(redisUrl!, keyPrefix);
  if (database) harness.afterStop = () => database.drop();
  if (options.captureLogs) (harness as unknown as { logs: string[] }).logs = logs;
  return harness;
}
