/**
 * The processes of bench/whatsapp-sim: the simulator (`whatsapp-sim` command of @parley/whatsapp-sim)
 * and the Parley server (`parley-node.ts`), each in its own process so that their memory and CPU are
 * measured apart.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cpuMicrosOf, rssMiBOf } from '../support/measure.js';

/** Admin token of the bench's Parley server. */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789';

/** Memory of a process after full GCs, in bytes. */
export interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

/** A simulator in its own process. */
export interface SimProcess {
  websocketUrl: string;
  controlUrl: string;
  /** Base64. */
  rootPublicKey: string;
  pid: number;
  stop(): Promise<void>;
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve();
  else child.once('exit', () => resolve());
});

/** Starts `whatsapp-sim` (its CLI) and resolves with the line it prints. */
export async function startSimProcess(): Promise<SimProcess> {
  const cli = fileURLToPath(new URL('./cli.js', import.meta.resolve('@parley/whatsapp-sim')));
  const child = spawn(process.execPath, [cli], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`whatsapp-sim exited with ${code}`)));
  });
  const info = JSON.parse(line) as Omit<SimProcess, 'pid' | 'stop'>;
  return {
    ...info, pid: child.pid!, stop: async () => {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

/** The Parley server in its own process (`node --expose-gc parley-node.js`), driven over IPC. */
export class ParleyNode {
  private constructor(private readonly child: ChildProcess, readonly url: string) {}

  /** `dataDir`: storage to use and keep (a restart on it restores the instances); `restorePerSecond`: WhatsApp restores started per second. */
  static async start(sim: SimProcess, options: { dataDir?: string; restorePerSecond?: number } = {}): Promise<ParleyNode> {
    const child = fork(fileURLToPath(new URL('./parley-node.js', import.meta.url)), [], {
      execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...process.env, BENCH_SIM_URL: sim.websocketUrl, BENCH_SIM_ROOT: sim.rootPublicKey,
        ...(options.dataDir ? { BENCH_DATA_DIR: options.dataDir } : {}),
        ...(options.restorePerSecond ? { BENCH_RESTORE_PER_SECOND: String(options.restorePerSecond) } : {}),
      },
    });
    const { url } = await ParleyNode.next<{ url: string }>(child, 'listening');
    return new ParleyNode(child, url);
  }

  private static next<T>(child: ChildProcess, cmd: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`parley-node exited with ${code}`));
      const on = (message: { cmd: string }) => {
        if (message.cmd !== cmd) return;
        child.off('message', on);
        child.off('exit', onExit);
        resolve(message as T);
      };
      child.on('message', on);
      child.once('exit', onExit);
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** RSS and heap after full GCs in the server process (RSS from /proc/<pid>/status). */
  async memory(): Promise<Memory> {
    const answer = ParleyNode.next<Memory>(this.child, 'memory');
    this.child.send({ cmd: 'memory' });
    const { heapUsed, external } = await answer;
    return { rss: rssMiBOf(this.pid) * 1_048_576, heapUsed, external };
  }

  /** Writes a heap snapshot of the server process to `file` (after full GCs). */
  async snapshot(file: string): Promise<void> {
    const answer = ParleyNode.next(this.child, 'snapshot');
    this.child.send({ cmd: 'snapshot', file });
    await answer;
  }

  /** Resolves once the node's start-up restore has finished (every restored instance's connect returned). */
  async restored(): Promise<void> {
    const answer = ParleyNode.next(this.child, 'restored');
    this.child.send({ cmd: 'restored' });
    await answer;
  }

  /** RSS now, without a GC (MiB). */
  rssMiB(): number {
    return rssMiBOf(this.pid);
  }

  /** CPU time (user + system) the server process used so far (µs). */
  cpuMicros(): number {
    return cpuMicrosOf(this.pid);
  }

  /** A JSON call on the server; throws on a non-2xx answer. */
  async call<T = any>(method: string, path: string, body?: unknown, token = BENCH_ADMIN_TOKEN): Promise<T> {
    const res = await fetch(`${this.url}${path}`, {
      method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async stop(): Promise<void> {
    this.child.send({ cmd: 'stop' });
    await exited(this.child);
  }
}

/** A JSON call on the simulator's control API; throws on a non-2xx answer. */
export async function simCall<T = any>(sim: SimProcess, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sim.controlUrl}${path}`, {
    method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`simulator ${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}
