import pg from 'pg';
import { ParleyError, ServiceUnavailableError, describeError, redactUrlCredentials, type Logger } from '@parley/core';
import { migrate } from './migrations.js';
import type { Queryable, Row } from './queryable.js';

export type { Queryable, Row } from './queryable.js';

/** Returned by a transaction's work to roll it back and answer `value` (an outcome that changes nothing). */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

/** Options of {@link PgDatabase} (PostgresStorage resolves their defaults). */
export interface PgDatabaseOptions {
  url: string;
  schema: string;
  poolSize: number;
  synchronousCommit: 'on' | 'off';
  /** Bound of a connection checkout, of a statement on the server and of the wait for its answer. */
  timeoutMs: number;
  logger?: Logger;
}

/**
 * int8 columns (seq, Unix ms) and COUNT(*) arrive as text by default, because a JavaScript number holds
 * integers exactly only up to 2^53: Parley's never come near it, so they are read as numbers.
 */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** See {@link PgDatabase.flush}. */
const WAL_BARRIER = "SELECT set_config('synchronous_commit', 'on', true) AS sync, pg_logical_emit_message(true, 'parley', 'flush')::text AS lsn";

/** Node.js network error codes that mean the server cannot be reached. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'EAI_AGAIN']);

/**
 * SQLSTATEs that mean "not now" rather than "wrong": connection exceptions (class 08), too many
 * connections, the server shutting down or starting, a statement cancelled by `statement_timeout`,
 * and the conflicts PostgreSQL resolves by aborting one transaction (serialization, deadlock).
 */
const TRANSIENT_SQLSTATE = /^(08...|53300|57P0[1-3]|57014|40001|40P01)$/;

/** Messages of pg and pg-pool for a connection that broke, timed out or was never made. */
const TRANSIENT_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|Connection refused|ended unexpectedly/i;

/** Whether an error of pg means that PostgreSQL cannot be reached right now (answered as HTTP 503). */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || TRANSIENT_SQLSTATE.test(code))) return true;
  if (err instanceof AggregateError) return err.errors.some(isTransient);
  return TRANSIENT_MESSAGE.test(err.message);
}

/**
 * One bounded pg pool over the storage's schema. Every statement runs through it; an error that means
 * the server is unreachable becomes ServiceUnavailableError (HTTP 503), and the connection it broke is
 * discarded (pg-pool drops a client released with an error), so recovery needs no intervention: the
 * next checkout opens a new connection.
 */
export class PgDatabase implements Queryable {
  private pool: pg.Pool | null = null;
  private readonly target: string;
  /** Whether a commit since the last {@link flush} did not wait for its WAL flush. */
  private unflushed = false;
  /** The WAL barrier in flight, which every commit before its start awaits too. */
  private barrier: Promise<void> | undefined;

  constructor(private readonly options: PgDatabaseOptions) {
    this.target = redactUrlCredentials(options.url);
  }

  get isOpen(): boolean {
    return this.pool !== null;
  }

  /** Opens the pool and migrates the schema; answers the schema version. */
  async open(): Promise<number> {
    if (this.pool) return this.transaction((tx) => migrate(tx, this.options.schema));
    const { url, schema, poolSize, timeoutMs } = this.options;
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      // A checkout waits at most this long for a free connection or a new one; then the call answers 503.
      connectionTimeoutMillis: timeoutMs,
      // The answer of a statement is awaited this long (a server that stopped answering), and the server
      // stops a statement running longer (statement_timeout), so no connection stays busy for ever.
      query_timeout: timeoutMs,
      statement_timeout: timeoutMs,
      // A transaction whose client vanished mid-way must not hold its row locks until TCP notices (in a cluster, the
      // new owner of an instance waits for them to take over its queued sends). Not shorter: a busy event loop may
      // leave a live transaction idle for seconds, and the server would end its connection.
      idle_in_transaction_session_timeout: Math.max(timeoutMs * 2, 10_000),
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      options: `-c search_path="${schema}" -c synchronous_commit=${this.options.synchronousCommit}`,
      types,
      // Shown in pg_stat_activity: which Parley storage (schema) a connection serves.
      application_name: `parley:${schema}`,
    });
    // An idle connection the server or the network dropped: the pool discards it; nothing is waiting on it.
    pool.on('error', (err) => this.options.logger?.warn({ postgres: this.target, err: redactUrlCredentials(err.message) }, 'postgres idle connection lost'));
    this.pool = pool;
    try {
      return await this.transaction((tx) => migrate(tx, schema));
    } catch (err) {
      this.pool = null;
      await pool.end().catch(() => undefined);
      if (err instanceof ServiceUnavailableError) {
        throw new ServiceUnavailableError(`cannot connect to the postgres storage at ${this.target}: ${err.message}`);
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end();
  }

  all<T extends Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.use((pool) => queryable(pool).all<T>(sql, params));
  }

  get<T extends Row>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    return this.use((pool) => queryable(pool).get<T>(sql, params));
  }

  run(sql: string, params: unknown[] = []): Promise<number> {
    return this.use((pool) => queryable(pool).run(sql, params));
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED) on one connection: committed when it resolves,
   * rolled back when it throws or answers a {@link Rollback}. The promise resolves after COMMIT, so
   * what it wrote is durable (synchronous_commit) when the caller goes on.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T | Rollback<T>>): Promise<T> {
    return this.use(async (pool) => {
      const client = await pool.connect();
      let broken: Error | undefined;
      // A checked-out client that loses its connection emits 'error' (pg-pool listens only while it is
      // idle): remember it, so the client is discarded; the statement in flight rejects on its own.
      const onError = (err: Error) => {
        broken = err;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await work(queryable(client));
        if (result instanceof Rollback) {
          await client.query('ROLLBACK');
          return result.value;
        }
        await client.query('COMMIT');
        return result;
      } catch (err) {
        if (isTransient(err)) broken ??= err as Error;
        else if (!broken) await client.query('ROLLBACK').catch((rollbackErr: Error) => { broken = rollbackErr; });
        throw err;
      } finally {
        client.removeListener('error', onError);
        // A client released with an error is closed, not pooled: its connection may be half-way through a transaction.
        client.release(broken);
      }
    });
  }

  /**
   * Notes a commit that did not wait for its WAL flush (`synchronous_commit` off for its transaction), so
   * that the next {@link flush} waits for it.
   */
  committedWithoutFlush(): void {
    this.unflushed = true;
  }

  /**
   * Resolves when every commit made before the call is on disk. With `synchronousCommit` on, only commits
   * noted by {@link committedWithoutFlush} need it; with it off, every commit does. One autocommitted
   * statement is the barrier: it writes a WAL record (a transactional logical message, which any user
   * may emit and nothing but logical decoding reads), so its transaction commits with a flush, and with
   * `synchronous_commit` on it returns once the WAL is on disk up to its commit — which covers every
   * earlier commit of every session (the WAL is one sequence). Concurrent barriers share one flush.
   * (A transaction that writes no WAL record commits without a flush, whatever `synchronous_commit` says.)
   */
  flush(): Promise<void> {
    if (this.options.synchronousCommit === 'on' && !this.unflushed) return this.barrier ?? Promise.resolve();
    this.unflushed = false;
    const barrier = this.get(WAL_BARRIER).then(() => undefined, (err: unknown) => {
      // Not known to be flushed: the next flush tries again.
      this.unflushed = true;
      throw err;
    }).finally(() => {
      if (this.barrier === barrier) this.barrier = undefined;
    });
    this.barrier = barrier;
    return barrier;
  }

  private async use<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    const pool = this.pool;
    if (!pool) throw new ServiceUnavailableError('postgres storage is not open');
    try {
      return await work(pool);
    } catch (err) {
      if (err instanceof ParleyError || !isTransient(err)) throw err;
      throw new ServiceUnavailableError(`postgres storage unavailable: ${describeError(err)}`);
    }
  }
}

/** The {@link Queryable} of a pool or a client; statements with parameters run as {@link prepared} ones. */
function queryable(target: pg.Pool | pg.PoolClient): Queryable {
  return {
    all: async <T extends Row>(sql: string, params: unknown[] = []) => (await target.query<T>(prepared(sql, params))).rows,
    get: async <T extends Row>(sql: string, params: unknown[] = []) => (await target.query<T>(prepared(sql, params))).rows[0],
    run: async (sql: string, params: unknown[] = []) => (await target.query(prepared(sql, params))).rowCount ?? 0,
  };
}

/** How many distinct statement texts get a name; more (none are expected: the repositories' texts are fixed) run unnamed. */
const MAX_NAMED = 1000;
const names = new Map<string, string>();

/**
 * A statement with parameters as a named prepared statement: node-postgres parses it once per connection
 * (and PostgreSQL keeps its plan, re-planned after a schema change), then only binds and executes it —
 * without a name each call is parsed and planned again (most of a primary-key read's server time). A
 * statement without parameters keeps the simple protocol (it may hold several statements: migrations).
 */
function prepared(text: string, values: unknown[]): pg.QueryConfig {
  if (values.length === 0) return { text };
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `parley_${names.size}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}
