import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from 'redis';
import { PrivateRedis } from './private-redis.js';

/** The ports of a {@link SentinelSet}: a master, its replicas (one or more) and three sentinels. */
export interface SentinelPorts {
  master: number;
  replicas: number[];
  sentinels: [number, number, number];
}

/**
 * A Redis master, its replicas and three sentinels of the test's own on loopback (never the
 * machine's Redis), monitoring the master as `name` with quorum 2, so a test can kill the master and
 * watch a failover: the sentinels call the master down after 1 s of silence. `replicaDials` is the
 * port the replicas connect to for their master: the master's, or a proxy's in front of it (a test
 * that cuts replication). For tests (`@parley/storage-redis/testing`).
 */
export class SentinelSet {
  readonly name = 'parley-test';
  readonly master: PrivateRedis;
  readonly replicas: PrivateRedis[];
  private readonly sentinels: PrivateRedis[];

  constructor(private readonly dir: string, private readonly ports: SentinelPorts, replicaDials = ports.master) {
    this.master = new PrivateRedis(ports.master, join(dir, 'master'));
    this.replicas = ports.replicas.map((port) => new PrivateRedis(port, join(dir, `replica-${port}`), ['--replicaof', '127.0.0.1', String(replicaDials)]));
    this.sentinels = ports.sentinels.map((port) => new PrivateRedis(port, join(dir, `sentinel-${port}`), ['--sentinel'], join(dir, `sentinel-${port}`, 'sentinel.conf')));
  }

  /** The sentinels as the `sentinel.nodes` option names them. */
  get nodes(): string[] {
    return this.ports.sentinels.map((port) => `127.0.0.1:${port}`);
  }

  /** Starts the master, the replicas (once they have synchronised) and the sentinels; bounded: about 30 s each. */
  async start(): Promise<void> {
    const names = ['master', ...this.ports.replicas.map((port) => `replica-${port}`), ...this.ports.sentinels.map((port) => `sentinel-${port}`)];
    for (const name of names) await mkdir(join(this.dir, name), { recursive: true });
    await this.master.start();
    for (const [i, replica] of this.replicas.entries()) {
      await replica.start();
      await this.until(async () => (await this.info(this.ports.replicas[i]!, 'replication')).includes('master_link_status:up'), 'a replica to synchronise');
    }
    for (const port of this.ports.sentinels) {
      await writeFile(join(this.dir, `sentinel-${port}`, 'sentinel.conf'), [
        `sentinel monitor ${this.name} 127.0.0.1 ${this.ports.master} 2`,
        `sentinel down-after-milliseconds ${this.name} 1000`,
        `sentinel failover-timeout ${this.name} 5000`,
        `sentinel parallel-syncs ${this.name} 1`,
        '',
      ].join('\n'));
    }
    for (const sentinel of this.sentinels) await sentinel.start();
    // Each sentinel learns the replica and the other sentinels from the master before a failover can work.
    await this.until(async () => {
      for (const port of this.ports.sentinels) {
        const [replicas, others] = await this.ask(port, async (c) => [
          await c.sendCommand<unknown[]>(['SENTINEL', 'REPLICAS', this.name]), await c.sendCommand<unknown[]>(['SENTINEL', 'SENTINELS', this.name]),
        ]);
        if (replicas!.length < this.replicas.length || others!.length < 2) return false;
      }
      return true;
    }, 'the sentinels to know the replica and each other');
  }

  /** The port of the master the sentinels name now. */
  async masterPort(): Promise<number> {
    const answer = await this.ask(this.ports.sentinels[0], (c) => c.sendCommand<[string, string]>(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name]));
    return Number(answer[1]);
  }

  /** Stops every process (the master may be killed already). */
  async stop(): Promise<void> {
    await Promise.all([...this.sentinels, ...this.replicas, this.master].map((server) => server.kill()));
  }

  private async info(port: number, section: string): Promise<string> {
    return this.ask(port, (c) => c.info(section));
  }

  private async ask<T>(port: number, question: (client: ReturnType<typeof createClient>) => Promise<T>): Promise<T> {
    const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false } });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await question(client);
    } finally {
      client.destroy();
    }
  }

  private async until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 300; i++) {
      if (await check().catch(() => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`timed out waiting for ${what}`);
  }
}
