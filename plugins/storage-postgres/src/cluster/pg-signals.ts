import { createHash } from 'node:crypto';
import pg from 'pg';
import { ServiceUnavailableError, describeError, redactUrlCredentials, type Logger, type StorageSignals } from '@parley/core';
import type { PgDatabase } from '../pg-database.js';

type Listener = (message: string) => void;

/**
 * A NOTIFY payload must be shorter than 8000 bytes (in the server's encoding, UTF-8 here). A message
 * whose payload would not fit is stored in `signal_payloads` and the notification carries its row id.
 */
export const NOTIFY_PAYLOAD_LIMIT = 8000;
/** Payload prefixes: the message itself, or the id of its `signal_payloads` row. */
const INLINE = '=';
const STORED = '@';
/** Stored payloads older than this are deleted by the next large publish (a listener reads its row at once). */
const STORED_PAYLOAD_TTL = "interval '1 minute'";
/** How many connections of application name $3 listen on this database. */
const LISTENING = '(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $3)';
/**
 * Publishes message $2 on channel $1 by the id of its `signal_payloads` row, deleting the rows older than
 * {@link STORED_PAYLOAD_TTL} on the way: a range of `signal_payloads_by_age` (migration 10) bounded on both
 * sides, the cutoff computed once (`clock_timestamp()` compared row by row is no index condition).
 */
export const PUBLISH_STORED = `WITH old AS (
    DELETE FROM signal_payloads WHERE at >= (SELECT min(at) FROM signal_payloads) AND at < (SELECT clock_timestamp() - ${STORED_PAYLOAD_TTL})
  ),
  stored AS (INSERT INTO signal_payloads (message) VALUES ($2) RETURNING id)
  SELECT pg_notify($1, '${STORED}' || id), ${LISTENING} AS n FROM stored`;
/** Reconnection back-off of the listening connection: first wait, doubled after each failure up to the last. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 2_000;

/** Options of {@link PgSignals}. */
export interface PgSignalsOptions {
  url: string;
  /** The storage's schema: topics are names under it, so deployments sharing a database never hear each other. */
  schema: string;
  /** Bound of the listening connection's connect and of its pings' answers; also how often it is pinged. */
  timeoutMs: number;
  logger?: Logger;
}

/**
 * {@link StorageSignals} on PostgreSQL's LISTEN/NOTIFY. A topic is the channel `parley_<hash of
 * schema and topic>` (a channel name is at most 63 bytes); a publish is `pg_notify` on the storage's
 * pool, heard on one dedicated listening connection opened at the first subscription. NOTIFY keeps
 * nothing for a connection that is not listening, which is the contract: delivery is at most once.
 * The listening connection is pinged every `timeoutMs`; one that broke or stopped answering is
 * replaced (with back-off) by a new one listening on every topic again, and then `onReconnect` fires.
 * Notifications are handed to listeners one after another in the order PostgreSQL delivered them
 * (commit order), also when one carries a stored payload that has to be read first.
 */
export class PgSignals implements StorageSignals {
  private client?: pg.Client;
  private connecting?: Promise<pg.Client>;
  private pinger?: NodeJS.Timeout;
  private retry?: NodeJS.Timeout;
  private closed = false;
  private delivering: Promise<void> = Promise.resolve();
  /** Listeners by channel: a replacement connection listens on every channel again. */
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly restored = new Set<() => void>();
  private readonly applicationName: string;

  constructor(private readonly db: PgDatabase, private readonly options: PgSignalsOptions) {
    this.applicationName = `parley-signals:${options.schema}`;
  }

  private channel(topic: string): string {
    return `parley_${createHash('sha256').update(`${this.options.schema}\n${topic}`).digest('hex').slice(0, 48)}`;
  }

  /**
   * NOTIFY cannot tell who heard it: answers how many listening connections of this schema were open
   * (whatever their topics), an upper bound of the subscriptions that received the message.
   */
  async publish(topic: string, message: string): Promise<number> {
    const channel = this.channel(topic);
    const row = Buffer.byteLength(INLINE + message) < NOTIFY_PAYLOAD_LIMIT
      ? await this.db.get<{ n: number }>(`SELECT pg_notify($1, $2), ${LISTENING} AS n`, [channel, INLINE + message, this.applicationName])
      : await this.db.get<{ n: number }>(PUBLISH_STORED, [channel, message, this.applicationName]);
    return row?.n ?? 0;
  }

  async subscribe(topic: string, listener: Listener): Promise<() => Promise<void>> {
    const channel = this.channel(topic);
    const heard: Listener = (message) => listener(message);
    const set = this.listeners.get(channel) ?? this.listeners.set(channel, new Set()).get(channel)!;
    set.add(heard);
    try {
      const client = await this.connection();
      await client.query(`LISTEN "${channel}"`);
    } catch (err) {
      set.delete(heard);
      if (set.size === 0) this.listeners.delete(channel);
      throw err instanceof ServiceUnavailableError ? err : new ServiceUnavailableError(`postgres signals unavailable: ${describeError(err)}`);
    }
    return async () => {
      if (!set.delete(heard) || set.size > 0) return;
      this.listeners.delete(channel);
      // A connection lost meanwhile took its LISTENs with it; its replacement listens only on channels with listeners.
      await this.client?.query(`UNLISTEN "${channel}"`).catch(() => undefined);
    };
  }

  onReconnect(listener: () => void): () => void {
    this.restored.add(listener);
    return () => this.restored.delete(listener);
  }

  /** Ends the listening connection and stops reconnecting. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.pinger);
    clearTimeout(this.retry);
    this.restored.clear();
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** The listening connection, opened on first use (a failed first open is tried again by the next subscription). */
  private connection(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new ServiceUnavailableError('postgres signals are closed'));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<pg.Client> {
    const { url, timeoutMs } = this.options;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, keepAlive: true, application_name: this.applicationName });
    client.on('notification', (n) => this.heard(n.channel, n.payload ?? ''));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.listeners.keys()) await client.query(`LISTEN "${channel}"`);
    } catch (err) {
      client.removeAllListeners('notification');
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new ServiceUnavailableError('postgres signals are closed');
    }
    this.client = client;
    clearInterval(this.pinger);
    this.pinger = setInterval(() => void client.query('SELECT 1').catch(() => this.lost(client)), timeoutMs);
    this.pinger.unref();
    return client;
  }

  /** The listening connection broke or stopped answering: drop it, and reconnect with back-off. */
  private lost(client: pg.Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    clearInterval(this.pinger);
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    this.options.logger?.warn({ postgres: redactUrlCredentials(this.options.url) }, 'postgres signals connection lost; reconnecting');
    this.reconnect(RECONNECT_FIRST_MS);
  }

  private reconnect(delayMs: number): void {
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.connection().then(
        () => {
          this.options.logger?.info({ postgres: redactUrlCredentials(this.options.url) }, 'postgres signals connection restored');
          // Whatever was published while no connection listened was not heard.
          for (const fn of this.restored) fn();
        },
        () => this.reconnect(Math.min(delayMs * 2, RECONNECT_MAX_MS)),
      );
    }, delayMs);
    this.retry.unref();
  }

  /** Hands a notification to its channel's listeners, after every earlier one (a stored payload is read first). */
  private heard(channel: string, payload: string): void {
    this.delivering = this.delivering.then(async () => {
      const message = payload.startsWith(STORED) ? await this.stored(payload.slice(STORED.length)) : payload.slice(INLINE.length);
      if (message === undefined) return;
      for (const listener of this.listeners.get(channel) ?? []) listener(message);
    }).catch((err: unknown) => this.options.logger?.warn({ err: describeError(err) }, 'postgres signal listener failed'));
  }

  /** A stored payload; undefined (the signal is missed, as any at-most-once signal may be) when it cannot be read. */
  private async stored(id: string): Promise<string | undefined> {
    try {
      return (await this.db.get<{ message: string }>('SELECT message FROM signal_payloads WHERE id = $1', [id]))?.message;
    } catch (err) {
      this.options.logger?.warn({ err: describeError(err) }, 'postgres signal payload could not be read; the signal is missed');
      return undefined;
    }
  }
}
