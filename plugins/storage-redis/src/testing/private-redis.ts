import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';

/**
 * A `redis-server` of the test's own on a free loopback port, with AOF (`appendfsync always`) in
 * `dir`, so a test can stop and restart it without touching the shared Redis. Never the machine's.
 * `args` are added to its command line (`--replicaof 127.0.0.1 <port>`, …). For tests
 * (`@parley/storage-redis/testing`).
 */
export class PrivateRedis {
  private child?: ChildProcess;

  /** `config`: a configuration file to start from (a sentinel's, which the server rewrites). */
  constructor(readonly port: number, private readonly dir: string, private readonly args: readonly string[] = [], private readonly config?: string) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server and resolves once it answers PING (bounded: 10 s). */
  async start(): Promise<void> {
    this.child = spawn('redis-server', [
      ...(this.config ? [this.config] : []), '--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.dir,
      ...this.args,
    ], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (await this.ping()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`redis-server on port ${this.port} did not start`);
  }

  /** Stops the server (SIGTERM: it finishes its AOF) and resolves once it exited. */
  stop(): Promise<void> {
    return this.end('SIGTERM');
  }

  /** Kills the server at once (SIGKILL: a crash) and resolves once it exited. */
  kill(): Promise<void> {
    return this.end('SIGKILL');
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  private ping(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = createConnection({ port: this.port, host: '127.0.0.1' });
      socket.once('error', () => resolve(false));
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
    });
  }
}
