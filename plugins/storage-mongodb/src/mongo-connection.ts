import {
  MongoClient, MongoError, MongoNetworkError, MongoServerError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError,
  type ClientSession, type Db,
} from 'mongodb';
import {
  ParleyError, ServiceUnavailableError, describeError, probeStorageHealth, redactUrlCredentials, type Logger, type StorageHealth,
} from '@parley/core';
import type { DialGuard, DialGuardClient } from '@parley/net';

/** Error labels and codes meaning "MongoDB cannot serve this now" (failover, shutdown, not primary). */
const UNAVAILABLE_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'ResetPool', 'PoolRequestedRetry'];
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

/** Connection settings of {@link MongoConnection}. */
export interface MongoConnectionSettings {
  url: string;
  dbName: string;
  /** Bound of one operation, server selection included. */
  timeoutMs: number;
  /** Name of the database in messages, `storage` or `external database`. */
  label: string;
  /**
   * For a database a user named (an external database attached through the API, unless private
   * URLs are allowed): the driver dials every address through this guard (as its SOCKS5 proxy) —
   * the seeds, and the replica-set members and mongos the deployment names in its `hello` answers,
   * IP literals included, which the seeds' check before connecting cannot see — and the guard
   * refuses, without dialling, any whose address is private (DNS rebinding included). Absent for the
   * operator's own storage.
   */
  guard?: DialGuard;
}

/**
 * One MongoClient with Parley's failure model: every operation is bounded by `timeoutMs` (server
 * selection included), and every failure to reach MongoDB surfaces as ServiceUnavailableError with
 * the credentials of the URL redacted. The driver reconnects by itself.
 */
export class MongoConnection {
  private client: MongoClient | undefined;
  private database: Db | undefined;
  private transactions = false;
  private guarded: DialGuardClient | undefined;
  readonly target: string;

  constructor(private readonly settings: MongoConnectionSettings, private readonly logger?: Logger) {
    this.target = redactUrlCredentials(settings.url);
  }

  /** Connects and pings; throws ServiceUnavailableError when MongoDB cannot be reached in time. */
  async connect(): Promise<void> {
    if (this.client) return;
    const timeoutMs = Math.min(this.settings.timeoutMs, uriTimeout(this.settings.url, 'serverSelectionTimeoutMS') ?? Infinity);
    this.guarded ??= await this.settings.guard?.client();
    const proxy = this.guarded?.proxy;
    const client = new MongoClient(this.settings.url, {
      serverSelectionTimeoutMS: timeoutMs,
      connectTimeoutMS: Math.min(timeoutMs, uriTimeout(this.settings.url, 'connectTimeoutMS') ?? Infinity),
      // Records hold no undefined (they are JSON-normalised), but a stray one must never become null.
      ignoreUndefined: true,
      ...(proxy ? { proxyHost: proxy.host, proxyPort: proxy.port, proxyUsername: proxy.username, proxyPassword: proxy.password } : {}),
    });
    client.on('serverHeartbeatFailed', () => this.logger?.debug({ mongodb: this.target }, 'mongodb heartbeat failed'));
    try {
      await this.bounded(async () => {
        await client.connect();
        const hello = await client.db(this.settings.dbName).command({ hello: 1 }) as { setName?: string; msg?: string };
        // Multi-document transactions need a replica set or a sharded cluster.
        this.transactions = hello.setName !== undefined || hello.msg === 'isdbgrid';
      });
    } catch (err) {
      await client.close(true).catch(() => undefined);
      const refused = this.refusal();
      throw new ServiceUnavailableError(`cannot connect to the ${this.settings.label} at ${this.target}: ${refused ? `not dialled: ${refused}` : describeError(err)}`);
    }
    this.client = client;
    this.database = client.db(this.settings.dbName);
  }

  /** The latest address the guard refused to dial for this connection (`10.0.0.5:27017 is a private network address`), if any. */
  refusal(): string | undefined {
    return this.guarded?.lastRefusal();
  }

  /** True when the deployment supports multi-document transactions. */
  get supportsTransactions(): boolean {
    return this.transactions;
  }

  /** Runs `operation` on the database, bounded and with unavailability mapped to ServiceUnavailableError. */
  async run<T>(operation: (db: Db) => Promise<T>): Promise<T> {
    const db = this.database;
    if (!db) throw new ServiceUnavailableError(`the ${this.settings.label} is not connected`);
    try {
      return await this.bounded(() => operation(db));
    } catch (err) {
      throw this.translate(err);
    }
  }

  /** Runs `operation` in a transaction when the deployment has them, else directly. */
  async runAtomically<T>(operation: (db: Db, session: ClientSession | undefined) => Promise<T>): Promise<T> {
    const client = this.client;
    if (!client || !this.transactions) return this.run((db) => operation(db, undefined));
    return this.run(async (db) => {
      const session = client.startSession();
      try {
        let result: T | undefined;
        await session.withTransaction(async () => {
          result = await operation(db, session);
        });
        return result as T;
      } finally {
        await session.endSession();
      }
    });
  }

  async ping(): Promise<StorageHealth> {
    if (!this.database) return { ready: false, detail: 'not connected' };
    return probeStorageHealth(() => this.run((db) => db.command({ ping: 1 })));
  }

  /** Closes the client and gives its guard client back. Idempotent. */
  async close(): Promise<void> {
    const client = this.client;
    const guarded = this.guarded;
    this.client = undefined;
    this.database = undefined;
    this.guarded = undefined;
    if (client) await client.close();
    await guarded?.release();
  }

  private async bounded<T>(operation: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ServiceUnavailableError(`the ${this.settings.label} at ${this.target} did not answer within ${this.settings.timeoutMs} ms`)),
        this.settings.timeoutMs,
      );
    });
    try {
      return await Promise.race([operation(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private translate(err: unknown): unknown {
    if (err instanceof ParleyError) return err;
    if (isUnavailable(err)) return new ServiceUnavailableError(`the ${this.settings.label} at ${this.target} is unavailable: ${describeError(err)}`);
    return err;
  }
}

/** True for errors that mean MongoDB could not be reached or cannot serve right now. */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof MongoServerSelectionError || err instanceof MongoNetworkError
    || err instanceof MongoNotConnectedError || err instanceof MongoTopologyClosedError) return true;
  if (err instanceof MongoError) {
    if (UNAVAILABLE_LABELS.some((label) => err.hasErrorLabel(label))) return true;
    return typeof err.code === 'number' && UNAVAILABLE_CODES.has(err.code);
  }
  return false;
}

/** True for a unique index violation (E11000). */
export function isDuplicate(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

/**
 * Runs an upsert again once when it lost a race on a unique index: two first inserts of one key both
 * miss the document and both insert; the second attempt finds and replaces the winner's.
 */
export async function retryOnDuplicate<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    if (!isDuplicate(err)) throw err;
    return operation();
  }
}

/** A millisecond option written in the connection string (names are case-insensitive there). */
export function uriTimeout(url: string, option: string): number | undefined {
  const query = url.split('?', 2)[1];
  if (!query) return undefined;
  for (const pair of query.split('&')) {
    const [name, value] = pair.split('=', 2);
    if (name?.toLowerCase() === option.toLowerCase() && value !== undefined) {
      const ms = Number(value);
      return Number.isFinite(ms) && ms > 0 ? ms : undefined;
    }
  }
  return undefined;
}
