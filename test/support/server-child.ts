import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVER_PROCESS_ADMIN_TOKEN } from './server-process.js';

const SCRIPT = fileURLToPath(new URL('./server-process.js', import.meta.url));

/** A Parley server running in a child process (see server-process.ts). */
export class ServerChild {
  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
    private readonly exited: Promise<NodeJS.Signals | number | null>,
    readonly stderr: string[],
  ) {}

  /**
   * Starts the server on `dataDir` and resolves once it listens (rejects if it exits or is not up in
   * time). `sandbox`: options of the sandbox channel plugin; `plugins`: entries appended to its plugin
   * list; `storage`: the storage plugin entry (SQLite in `dataDir` when absent); `nodeFlags`: flags
   * of the child's `node` (V8's, for memory measures).
   */
  static start(
    dataDir: string, config: Record<string, unknown> = {},
    { timeoutMs = 40_000, sandbox = {}, plugins = [], storage, nodeFlags = [] }: {
      timeoutMs?: number; sandbox?: Record<string, unknown>; plugins?: unknown[]; storage?: { package: string; options?: Record<string, unknown> }; nodeFlags?: string[];
    } = {},
  ): Promise<ServerChild> {
    const child = spawn(process.execPath, [...nodeFlags, SCRIPT], {
      env: {
        ...process.env, PARLEY_TEST_DATA_DIR: dataDir, PARLEY_TEST_CONFIG: JSON.stringify(config), PARLEY_TEST_SANDBOX: JSON.stringify(sandbox),
        PARLEY_TEST_PLUGINS: JSON.stringify(plugins), PARLEY_TEST_STORAGE: JSON.stringify(storage ?? null),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
    return new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`server process did not start within ${timeoutMs} ms: ${stderr.join('')}`));
      }, timeoutMs);
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (!line) return;
        clearTimeout(timer);
        resolve(new ServerChild(child, (JSON.parse(line) as { url: string }).url, exited, stderr));
      });
      void exited.then((how) => {
        clearTimeout(timer);
        reject(new Error(`server process exited (${String(how)}) before listening: ${stderr.join('')}`));
      });
    });
  }

  /** A real HTTP request with JSON in and out; `admin` adds the admin token. */
  async request(method: string, path: string, body?: unknown, admin = false): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = admin ? { authorization: `Bearer ${SERVER_PROCESS_ADMIN_TOKEN}` } : {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /**
   * Creates a sandbox instance through the admin API (`body`: name, options, webhook…), connects it
   * and scans its QR. Answers the created instance (`id`, `key`, `webhookSecret`…).
   */
  async connectedSandbox(body: Record<string, unknown>): Promise<{ id: string; key: string; webhookSecret: string }> {
    const created = await this.request('POST', '/admin/instances', { channel: 'sandbox', ...body }, true);
    if (created.status !== 200) throw new Error(`creating a sandbox instance answered ${created.status}: ${JSON.stringify(created.body)}`);
    const { key } = created.body.data as { key: string };
    for (const path of [`/${key}/instance`, `/sandbox/${key}/scan`]) {
      const res = await this.request('POST', path);
      if (res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    }
    return created.body.data;
  }

  /** Kills the process with `signal` and resolves once it is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<NodeJS.Signals | number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}
