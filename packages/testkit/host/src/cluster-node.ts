import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The real server command (`parley-server` of `@parley/distribution`), as operators start it. */
const CLI = fileURLToPath(new URL('../../bin/parley-server.js', import.meta.resolve('@parley/distribution')));

/** Admin token and cluster secret of the test clusters (every node shares them). */
export const CLUSTER_ADMIN_TOKEN = 'cluster-test-admin-token-0123456789';
export const CLUSTER_SECRET = 'cluster-test-secret-0123456789';


/** A storage plugin entry of a node's config. */
export interface StoragePluginEntry {
  package: string;
  options: Record<string, unknown>;
}

/**
 * Where a node keeps its data, the same for every node of a cluster (docs/cluster.md): a Redis URL and
 * key prefix, or any storage plugin entry that can run a cluster (`@parley/storage-postgres`).
 */
export type NodeStorage = { redisUrl: string; keyPrefix: string } | { storagePlugin: StoragePluginEntry };

/** What a cluster node process is started with. */
export type NodeOptions = NodeStorage & NodeSettings;

/** What a cluster node process is started with, beside its storage. */
export interface NodeSettings {
  id: string;
  port: number;
  dir: string;
  /** Merged over the `cluster` member of the config. */
  cluster?: Record<string, unknown>;
  /** Plugin entries added after the node's own (a channel plugin such as `@parley/channel-instagram`). */
  plugins?: { package: string; options?: Record<string, unknown> }[];
  /** Merged over the `queue` member of the config. */
  queue?: Record<string, unknown>;
  /** Merged over the storage plugin's options (`commandTimeoutMs`, `pingIntervalMs`…). */
  storage?: Record<string, unknown>;
  /** Extra environment (overrides). */
  env?: Record<string, string>;
}

/**
 * One Parley cluster node running the real CLI in a child process, on shared storage and the sandbox
 * channel, for tests and benchmarks that kill, pause and restart nodes. Its output goes to
 * `<dir>/<id>/node.log` and to {@link NodeProcess.lines}.
 */
export class NodeProcess {
  readonly lines: string[] = [];
  private readonly exited: Promise<NodeJS.Signals | number | null>;

  private constructor(readonly id: string, readonly url: string, readonly child: ChildProcess, logFile: string) {
    let partial = '';
    const take = (chunk: string) => {
      appendFileSync(logFile, chunk);
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      this.lines.push(...parts);
    };
    child.stdout!.setEncoding('utf8').on('data', take);
    child.stderr!.setEncoding('utf8').on('data', take);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  }

  /** Writes the node's config file and starts it; `ready` waits for `/readyz` (bounded). */
  static launch(options: NodeOptions): NodeProcess {
    const dataDir = join(options.dir, options.id);
    mkdirSync(dataDir, { recursive: true });
    const configPath = join(dataDir, 'parley.json');
    const storage: StoragePluginEntry = 'storagePlugin' in options
      ? options.storagePlugin
      : { package: '@parley/storage-redis', options: { url: options.redisUrl, keyPrefix: options.keyPrefix } };
    writeFileSync(configPath, JSON.stringify({
      host: '127.0.0.1', port: options.port, dataDir, logLevel: 'info', defaultChannel: 'sandbox',
      cluster: { nodeId: options.id, advertiseUrl: `http://127.0.0.1:${options.port}`, secret: CLUSTER_SECRET, ...options.cluster },
      // A killed node's claimed deliveries are sent by another node's worker once their lease ends: short too.
      webhooks: { timeoutMs: 5000, leaseMs: 8000, retry: { schedule: [200, 400, 1000, 2000], jitter: 0 } },
      // A killed node's sends in flight are sent by their instance's new owner once their queue lease
      // ends: short, as the cluster leases of the tests are (docs/queue.md, "In a cluster").
      queue: { leaseMs: 4000, ...options.queue },
      plugins: [
        { package: storage.package, options: { ...storage.options, ...options.storage } },
        { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
        { package: '@parley/webhook-native' },
        ...(options.plugins ?? []),
      ],
    }));
    const child = spawn(process.execPath, [CLI], {
      env: { ...process.env, PARLEY_CONFIG: configPath, PARLEY_ADMIN_TOKEN: CLUSTER_ADMIN_TOKEN, PARLEY_ALLOW_PRIVATE_URLS: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new NodeProcess(options.id, `http://127.0.0.1:${options.port}`, child, join(dataDir, 'node.log'));
  }

  /**
   * Starts a node and resolves once it answers `/readyz` 200; rejects if it exits first or is not ready
   * within 60 s, and then kills it (a process left running would keep the test's own process alive).
   */
  static async start(options: NodeOptions): Promise<NodeProcess> {
    const node = NodeProcess.launch(options);
    try {
      await node.ready();
    } catch (err) {
      await node.stop('SIGKILL');
      throw err;
    }
    return node;
  }

  /**
   * Resolves once the node answers `/readyz` 200. The bound is generous: a node needs 2-3 s of CPU to
   * start, and on a 2-core machine under a load average of 12-17 that took more than 20 s.
   */
  async ready(timeoutMs = 60_000): Promise<void> {
    const until = performance.now() + timeoutMs;
    while (performance.now() < until) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`node ${this.id} exited: ${this.lines.slice(-5).join('\n')}`);
      const status = await fetch(`${this.url}/readyz`).then((r) => r.status, () => 0);
      if (status === 200) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`node ${this.id} not ready within ${timeoutMs} ms`);
  }

  /** JSON request; `admin` adds the admin token. */
  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, admin = false): Promise<{ status: number; body: any }> {
    const h: Record<string, string> = { ...headers };
    if (admin) h.authorization = `Bearer ${CLUSTER_ADMIN_TOKEN}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(`${this.url}${path}`, { method, headers: h, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /** The node's JSON log lines whose message is `msg`. */
  logs(msg: string): Record<string, any>[] {
    return this.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>).filter((l) => l.msg === msg);
  }

  signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  /** Sends `signal` (default SIGTERM: graceful) and resolves with how the process ended. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<NodeJS.Signals | number | null> {
    this.signal(signal);
    return this.exited;
  }

  /** Resolves with the exit code or signal once the process ended. */
  exit(): Promise<NodeJS.Signals | number | null> {
    return this.exited;
  }
}
