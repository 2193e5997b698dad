import { createClient, ErrorReply, type RedisClientType } from 'redis';
import {
  ParleyError, ServiceUnavailableError, describeError, probeStorageHealth, redactUrlCredentials, type Logger, type StorageHealth,
} from '@parley/core';
import { ConnectionWatch } from './connection-watch.js';
import type { ResolvedRedisOptions } from './redis.options.js';
import { MasterFollower } from './sentinel/master-follower.js';
import { SentinelLocator, type RedisAddress } from './sentinel/sentinel-locator.js';

/** The node-redis client type this back end uses. */
export type RedisClient = RedisClientType;

/** Reconnect delays grow from 100 ms and are capped, so a long outage costs one attempt per few seconds. */
const RECONNECT_BASE_MS = 100;
const RECONNECT_CAP_MS = 5000;

/**
 * Redis answers that mean "not now" rather than "wrong": a restarted server loading its data set, a
 * replica promoted or a script stuck. They map to HTTP 503 like a lost connection.
 */
const TRANSIENT_REPLIES = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|READONLY|MISCONF|CLUSTERDOWN)\b/;

/**
 * One Redis connection with Parley's failure model: commands never wait for a reconnection (the
 * offline queue is disabled), every operation is bounded by `commandTimeoutMs`, and every failure to
 * reach Redis surfaces as {@link ServiceUnavailableError}. The client reconnects by itself with a
 * capped exponential backoff; a connection that stopped answering without closing (see
 * {@link ConnectionWatch}) is replaced by a new one. What Redis persisted stays where it is.
 */
export class RedisConnection {
  private client: RedisClient | undefined;
  private everReady = false;
  private connected = false;
  private readonly target: string;
  private readonly watch: ConnectionWatch;
  /** With Sentinel: who names the master, the master named last, and what follows it to a new one. */
  private readonly locator?: SentinelLocator;
  private readonly follower?: MasterFollower;
  private master?: RedisAddress;
  private readonly moveListeners = new Set<() => void>();
  /** Counts the clients opened: a WAIT covers only the writes sent on its own connection. */
  private generation = 0;
  /** The {@link generation} of the last WAIT that confirmed its writes. */
  private confirmed = 0;
  private waiting?: Promise<boolean>;
  private nextWait?: Promise<boolean>;

  constructor(private readonly options: ResolvedRedisOptions, private readonly logger?: Logger) {
    const { sentinel } = options;
    this.target = sentinel ? `redis master ${sentinel.name} (sentinels ${sentinel.nodes.join(', ')})` : redactUrlCredentials(options.url);
    this.watch = new ConnectionWatch(options.pingIntervalMs, options.commandTimeoutMs, () => this.client, (reason) => this.replace(reason));
    if (sentinel) {
      this.locator = new SentinelLocator(sentinel, options.commandTimeoutMs, logger);
      this.follower = new MasterFollower(this.locator, options.pingIntervalMs, () => this.master, (master) => this.moveTo(master), logger);
    }
  }

  /** Connects, retrying `connectAttempts` times; throws ServiceUnavailableError when Redis stays unreachable. */
  async connect(): Promise<void> {
    if (this.client) return;
    if (this.locator) this.master = await this.locateMaster(this.locator);
    const client = this.open();
    this.client = client;
    try {
      await client.connect();
    } catch (err) {
      this.client = undefined;
      if (client.isOpen) client.destroy();
      const cause = err instanceof Error ? ((err as { socketError?: unknown }).socketError ?? err) : err;
      throw new ServiceUnavailableError(`cannot connect to redis at ${this.target}: ${describeError(cause)}`);
    }
    // Nothing was written before this connection: the first WAIT on it speaks for every write.
    this.confirmed = this.generation;
    this.watch.start();
    this.follower?.start();
  }

  /** The master the sentinels name, asked `connectAttempts` times with the reconnect delays between. */
  private async locateMaster(locator: SentinelLocator): Promise<RedisAddress> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await locator.master();
      } catch (err) {
        if (attempt >= this.options.connectAttempts) throw new ServiceUnavailableError(`cannot connect to ${this.target}: ${describeError(err)}`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(RECONNECT_BASE_MS * 2 ** attempt, RECONNECT_CAP_MS)));
      }
    }
  }

  /** Follows the sentinels to a new master: the connections are replaced by connections to it. */
  private moveTo(master: RedisAddress): void {
    this.master = master;
    this.replace('the sentinels named a new master', true);
    for (const listener of this.moveListeners) listener();
  }

  /** Calls `listener` when the sentinels name a new master (the subscriber connection follows it); answers how to stop. */
  onMasterMoved(listener: () => void): () => void {
    this.moveListeners.add(listener);
    return () => this.moveListeners.delete(listener);
  }

  /** A client with this connection's listeners, not connected yet. */
  private open(): RedisClient {
    const client = this.newClient();
    this.generation++;
    this.watch.follow(client);
    client.on('error', (err: Error) => {
      // Logged once per outage: the client keeps emitting an error per failed reconnection.
      if (client === this.client && this.connected) {
        this.connected = false;
        this.logger?.warn({ redis: this.target, err: redactUrlCredentials(err.message) }, 'redis connection lost; reconnecting');
      }
    });
    client.on('ready', () => {
      if (client !== this.client) return;
      if (this.everReady && !this.connected) this.logger?.info({ redis: this.target }, 'redis connection restored');
      this.everReady = true;
      this.connected = true;
    });
    return client;
  }

  /**
   * Replaces a connection that stopped answering (or, with Sentinel, is on a master the sentinels
   * replaced: `moved`, which the caller logged): the commands waiting on it fail (503) and a new
   * connection is opened with the usual reconnect policy; commands fail at once until it is ready.
   */
  private replace(reason: string, moved = false): void {
    const dead = this.client;
    if (!dead) return;
    if (this.connected && !moved) this.logger?.warn({ redis: this.target, reason }, 'redis connection stopped answering; opening a new one');
    this.connected = false;
    const fresh = this.open();
    this.client = fresh;
    if (dead.isOpen) dead.destroy();
    // Retried by the reconnect policy until it is ready, replaced again, or closed.
    fresh.connect().catch(() => undefined);
  }

  /** A client with this connection's URL and reconnect policy, not connected yet. */
  private newClient(): RedisClient {
    return createClient({
      url: this.clientUrl(),
      disableOfflineQueue: true,
      socket: {
        connectTimeout: Math.min(this.options.commandTimeoutMs, 10_000),
        reconnectStrategy: (retries: number, cause: Error) => {
          if (!this.everReady && retries + 1 >= this.options.connectAttempts) return cause;
          return Math.min(RECONNECT_BASE_MS * 2 ** retries, RECONNECT_CAP_MS) + Math.floor(Math.random() * RECONNECT_BASE_MS);
        },
      },
    }) as RedisClient;
  }

  /** The configured URL, pointed at the master the sentinels named when there are sentinels. */
  private clientUrl(): string {
    if (!this.master) return this.options.url;
    const url = new URL(this.options.url);
    url.hostname = this.master.host.includes(':') ? `[${this.master.host}]` : this.master.host;
    url.port = String(this.master.port);
    return url.toString();
  }

  /**
   * A second connection for subscriptions (a subscribed Redis connection runs no other command),
   * with the same reconnect policy; node-redis subscribes again by itself after a reconnection, and
   * `onRestored` runs each time it is ready again. Call after {@link connect}.
   */
  async openSubscriber(onRestored: () => void): Promise<RedisClient> {
    const client = this.subscriberClient(onRestored);
    try {
      await client.connect();
    } catch (err) {
      if (client.isOpen) client.destroy();
      throw this.translate(err);
    }
    return client;
  }

  /** A subscriber connection as {@link openSubscriber} opens it, not connected yet. */
  subscriberClient(onRestored: () => void): RedisClient {
    const client = this.newClient();
    let lost = false;
    client.on('error', (err: Error) => {
      if (!lost) this.logger?.warn({ redis: this.target, err: redactUrlCredentials(err.message) }, 'redis subscriber connection lost; reconnecting');
      lost = true;
    });
    client.on('ready', () => {
      if (!lost) return;
      lost = false;
      onRestored();
    });
    return client;
  }

  /** A {@link ConnectionWatch} with this connection's timing, for a connection of the caller's (the subscriber). */
  watchOf(client: () => RedisClient | undefined, dead: (reason: string) => void): ConnectionWatch {
    return new ConnectionWatch(this.options.pingIntervalMs, this.options.commandTimeoutMs, client, (reason) => {
      this.logger?.warn({ redis: this.target, reason }, 'redis subscriber connection stopped answering; opening a new one');
      dead(reason);
    });
  }

  /** True while commands can be sent. */
  get isReady(): boolean {
    return this.client?.isReady ?? false;
  }

  /**
   * Runs `operation` on the client. Fails at once with ServiceUnavailableError while disconnected,
   * and after `commandTimeoutMs` when Redis does not answer; an operation that timed out may still
   * complete on the server, which every repository tolerates (writes are idempotent or conditional).
   */
  async run<T>(operation: (client: RedisClient) => Promise<T>): Promise<T> {
    const client = this.client;
    if (!client) throw new ServiceUnavailableError('redis storage is not connected');
    if (!client.isReady) throw new ServiceUnavailableError(`redis at ${this.target} is unreachable; reconnecting`);
    const sentAt = performance.now();
    const answered = operation(client).then((value) => {
      this.watch.heard();
      return value;
    }, (err: unknown) => {
      if (err instanceof ErrorReply) this.watch.heard();
      // Written to a master the sentinels demoted: ask them now rather than at the next check.
      if (this.follower && err instanceof ErrorReply && err.message.startsWith('READONLY')) void this.follower.check();
      throw err;
    });
    return this.bounded(answered, () => {
      if (client === this.client) this.watch.timedOut(sentAt);
    });
  }

  /**
   * Settles with `pending`, or fails with ServiceUnavailableError after `commandTimeoutMs` (calling
   * `late` first); any failure is translated to this connection's failure model.
   */
  async bounded<T>(pending: Promise<T>, late?: () => void): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        late?.();
        reject(new ServiceUnavailableError(`redis at ${this.target} did not answer within ${this.options.commandTimeoutMs} ms`));
      }, this.options.commandTimeoutMs);
    });
    try {
      return await Promise.race([pending, timeout]);
    } catch (err) {
      throw this.translate(err);
    } finally {
      clearTimeout(timer);
      pending.catch(() => undefined);
    }
  }

  /**
   * Whether the writes sent before the call reached `waitReplicas` replicas (Redis `WAIT`), so that a
   * failover to one of them keeps them. True at once with `waitReplicas` 0. False when fewer replicas
   * confirmed within `waitTimeoutMs`, when the connection was replaced since the last confirmation
   * (writes sent on the old one cannot be asked about), or when Redis could not be asked. Callers
   * arriving while a WAIT is in flight share the next one, which covers their writes too.
   */
  replicated(): Promise<boolean> {
    if (this.options.waitReplicas === 0) return Promise.resolve(true);
    if (!this.waiting) {
      this.waiting = this.waitOnce().finally(() => {
        this.waiting = undefined;
      });
      return this.waiting;
    }
    this.nextWait ??= this.waiting.then(() => {
      this.nextWait = undefined;
      return this.replicated();
    });
    return this.nextWait;
  }

  private async waitOnce(): Promise<boolean> {
    const { waitReplicas, waitTimeoutMs } = this.options;
    const generation = this.generation;
    let acked: number;
    try {
      acked = await this.run((client) => client.sendCommand<number>(['WAIT', String(waitReplicas), String(waitTimeoutMs)]));
    } catch (err) {
      this.logger?.warn({ redis: this.target, err: describeError(err) }, 'redis writes not confirmed by replicas: WAIT failed');
      return false;
    }
    const sameConnection = generation === this.generation && this.confirmed === generation;
    if (generation === this.generation) this.confirmed = generation;
    if (acked < waitReplicas) {
      this.logger?.warn({ redis: this.target, acked, wanted: waitReplicas, waitTimeoutMs }, 'redis writes not confirmed by enough replicas');
      return false;
    }
    return sameConnection;
  }

  /**
   * Readiness: one small write (`key`, expiring in a minute), not a PING: a Redis that answers but
   * refuses writes (`OOM` at `maxmemory` with `noeviction`, `MISCONF` after a failed snapshot,
   * `READONLY` on a replica) is not ready, and the refusal is the reason.
   */
  async probe(key: string): Promise<StorageHealth> {
    if (!this.client) return { ready: false, detail: 'not connected' };
    if (!this.client.isReady) return { ready: false, detail: `redis at ${this.target} is unreachable; reconnecting` };
    return probeStorageHealth(() => this.run((client) => client.set(key, String(Date.now()), { PX: 60_000 })));
  }

  /** Closes the connection, waiting (at most `commandTimeoutMs`) for answers in flight. Idempotent. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.watch.stop();
    this.follower?.stop();
    this.connected = false;
    if (!client || !client.isOpen) return;
    if (!client.isReady) {
      client.destroy();
      return;
    }
    // close() waits for the answers in flight; a Redis that stopped answering must not hold shutdown.
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.commandTimeoutMs);
    });
    const outcome = await Promise.race([client.close().then(() => 'closed' as const), gaveUp]);
    clearTimeout(timer);
    if (outcome === 'timeout') client.unref();
  }

  private translate(err: unknown): unknown {
    if (err instanceof ParleyError) return err;
    if (err instanceof ErrorReply && !TRANSIENT_REPLIES.test(err.message)) return err;
    return new ServiceUnavailableError(`redis at ${this.target} is unavailable: ${describeError(err)}`);
  }
}
