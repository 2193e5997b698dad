import { createClient, type RedisClientType } from 'redis';
import { ServiceUnavailableError, describeError, type Logger } from '@parley/core';

/** Where a Redis server listens. */
export interface RedisAddress {
  host: string;
  port: number;
}

/** How to find the master through Redis Sentinel (the `sentinel` option of the Redis back end). */
export interface SentinelSettings {
  /** The master's name as the sentinels monitor it (`sentinel monitor <name> …`). */
  name: string;
  /** Sentinels to ask, as `host:port`. */
  nodes: string[];
  /** The sentinels' password (`requirepass` in sentinel.conf), when they take one. */
  password?: string;
}

/** Parses a `host:port` (IPv6 hosts in brackets: `[::1]:26379`). */
export function parseAddress(node: string): RedisAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(node);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) throw new TypeError(`sentinel node ${JSON.stringify(node)} is not host:port`);
  return { host: match[1] ?? match[2]!, port };
}

/** `host:port` of an address, as logs and errors show it. */
export function formatAddress(address: RedisAddress): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

/**
 * Finds the current master as the Redis Sentinel client guidelines describe
 * (https://redis.io/docs/latest/develop/reference/sentinel-clients/): ask the sentinels one after
 * another `SENTINEL GET-MASTER-ADDR-BY-NAME`, take the first answer, and move the sentinel that
 * answered to the front of the list. One connection to the sentinel that answered last is kept for
 * the next question; every question is bounded by `timeoutMs`, and a sentinel that does not answer
 * in time is closed and the next one asked.
 */
export class SentinelLocator {
  private readonly nodes: RedisAddress[];
  private client?: { address: RedisAddress; client: RedisClientType };
  private asking?: Promise<RedisAddress>;

  constructor(private readonly settings: SentinelSettings, private readonly timeoutMs: number, private readonly logger?: Logger) {
    this.nodes = settings.nodes.map(parseAddress);
  }

  /** The master's address now. Concurrent callers share one round of questions. Throws ServiceUnavailableError when no sentinel names it. */
  master(): Promise<RedisAddress> {
    this.asking ??= this.ask().finally(() => {
      this.asking = undefined;
    });
    return this.asking;
  }

  private async ask(): Promise<RedisAddress> {
    const failures: string[] = [];
    for (const node of [...this.nodes]) {
      try {
        const master = await this.askOne(node);
        if (master) {
          this.nodes.splice(this.nodes.indexOf(node), 1);
          this.nodes.unshift(node);
          return master;
        }
        failures.push(`${formatAddress(node)}: does not monitor ${this.settings.name}`);
      } catch (err) {
        this.drop(node);
        failures.push(`${formatAddress(node)}: ${describeError(err)}`);
      }
    }
    this.logger?.debug({ sentinels: failures }, 'no sentinel named the redis master');
    throw new ServiceUnavailableError(`no sentinel names the redis master ${this.settings.name} (${failures.join('; ')})`);
  }

  private async askOne(node: RedisAddress): Promise<RedisAddress | undefined> {
    if (this.client && this.client.address !== node) this.drop(this.client.address);
    const client = this.client?.client ?? await this.open(node);
    const answer = await this.bounded(client.sendCommand<[string, string] | null>(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.settings.name]));
    if (!answer) return undefined;
    return { host: answer[0], port: Number(answer[1]) };
  }

  private async open(node: RedisAddress): Promise<RedisClientType> {
    const client = createClient({
      socket: { host: node.host, port: node.port, connectTimeout: this.timeoutMs, reconnectStrategy: false },
      ...(this.settings.password === undefined ? {} : { password: this.settings.password }),
      disableOfflineQueue: true,
    }) as RedisClientType;
    client.on('error', () => undefined); // a failed question says why; a sentinel dropping the connection is dropped below
    this.client = { address: node, client };
    try {
      await this.bounded(client.connect());
    } catch (err) {
      this.drop(node);
      throw err;
    }
    return client;
  }

  private drop(node: RedisAddress): void {
    if (this.client?.address !== node) return;
    const { client } = this.client;
    this.client = undefined;
    if (client.isOpen) client.destroy();
  }

  private async bounded<T>(pending: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([pending, late]);
    } finally {
      clearTimeout(timer);
      pending.catch(() => undefined);
    }
  }

  /** Closes the connection to the sentinel. */
  close(): void {
    if (this.client) this.drop(this.client.address);
  }
}
