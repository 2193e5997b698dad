import pg from 'pg';
import { ParleyError, ServiceUnavailableError, describeError, redactUrlCredentials, type Logger } from '@parley/core';
import { GroupCommit } from './group-commit.js';
import { migrate } from './migrations.js';
import { KeyLookups } from './key-lookups.js';
import { isTransient } from './pg-errors.js';
import { TurnUpserts } from './turn-upserts.js';
import { prepared, queryable, type Queryable, type Row } from './queryable.js';
import { WriteBehind } from './write-behind.js';

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
  /** Whether {@link PgDatabase.writes} share a group commit (else they are committed each on its own, as the pool's statements). */
  groupCommit?: boolean;
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

/** Writes of one group commit at most (a turn's writes beyond it go into the next one). */
const MAX_BATCH_WRITES = 500;

/** See {@link PgDatabase.flush}. */
const WAL_BARRIER = "SELECT set_config('synchronous_commit', 'on', true) AS sync, pg_logical_emit_message(true, 'parley', 'flush')::text AS lsn";

/**
 * One bounded pg pool over the storage's schema. Every statement runs through it; an error that means
 * the server is unreachable becomes ServiceUnavailableError (HTTP 503), and the connection it broke is
 * discarded (pg-pool drops a client released with an error), so recovery needs no intervention: the
 * next checkout opens a new connection.
 */
export class PgDatabase implements Queryable {
  private pool: pg.Pool | null = null;
  /** The pool of the {@link writes} without group commit: sessions with `synchronous_commit` off (see {@link relaxedWrites}). */
  private relaxed: pg.Pool | null = null;
  /** Connections of `poolSize` given to {@link relaxed} (0: none, the writes commit on the pool). */
  private readonly relaxedSize: number = 0;
  private readonly target: string;
  /** Whether a commit since the last {@link flush} did not wait for its WAL flush. */
  private unflushed = false;
  /** The WAL barrier in flight, which every commit before its start awaits too. */
  private barrier: Promise<void> | undefined;
  /** The barrier that starts once {@link barrier} ends, shared by the flushes called meanwhile. */
  private nextBarrier: Promise<void> | undefined;
  private readonly group: GroupCommit;
  private readonly discardListeners = new Set<() => void>();
  /** Writes whose callers do not wait for them (see {@link writeBehind}). */
  private readonly behind = new WriteBehind(() => {
    for (const listener of this.discardListeners) listener();
  });
  /**
   * Writes that need not be durable on their own (projections, event-log rows, plugins' state), made
   * durable by the next {@link flush}: with group commit each runs in the group commit's transaction of
   * its turn and resolves before that commits; without it each commits on its own, without waiting for its
   * WAL flush when `synchronousCommit` is on ({@link relaxedWrites}). Read them back through {@link reads}.
   */
  readonly writes: Queryable;
  /** Reads that see the {@link writes} made before them, committed or not (through the group commit's connection while it has any). */
  readonly reads: Queryable;
  /** Reads of messages, chats and contacts by key through {@link reads}, those of one event-loop turn in one statement (each alone, in order, under group commit). */
  readonly lookups: KeyLookups;
  /** Upserts of messages, chats, contacts and state through {@link writes}, those of one event-loop turn in one statement (each alone, in order, under group commit). */
  readonly upserts: TurnUpserts;

  constructor(private readonly options: PgDatabaseOptions) {
    this.target = redactUrlCredentials(options.url);
    this.lookups = new KeyLookups(() => this.reads, options.groupCommit);
    this.upserts = new TurnUpserts(() => this.writes, options.groupCommit);
    this.group = new GroupCommit({
      connect: () => this.use((pool) => pool.connect()),
      timeoutMs: options.timeoutMs,
      maxWrites: MAX_BATCH_WRITES,
      othersWaiting: () => (this.pool?.waitingCount ?? 0) > 0,
      committed: () => {
        if (options.synchronousCommit === 'off') this.committedWithoutFlush();
      },
      unavailable: (err) => (err instanceof ParleyError ? err : new ServiceUnavailableError(`postgres storage unavailable: ${describeError(err)}`)),
    });
    const { group } = this;
    if (!options.groupCommit) {
      this.relaxedSize = options.synchronousCommit === 'on' ? Math.floor(options.poolSize / 2) : 0;
      this.writes = this.relaxedSize > 0 ? this.relaxedWrites() : this;
      this.reads = this;
      return;
    }
    this.writes = {
      all: async <T extends Row>(sql: string, params: unknown[] = []) => (await this.use(() => group.write(sql, params))).rows as T[],
      get: async <T extends Row>(sql: string, params: unknown[] = []) => (await this.use(() => group.write(sql, params))).rows[0] as T | undefined,
      run: async (sql: string, params: unknown[] = []) => (await this.use(() => group.write(sql, params))).rowCount ?? 0,
    };
    const read = (sql: string, params: unknown[]) => this.use((pool) => (group.busy ? group.read(sql, params) : pool.query(prepared(sql, params))));
    this.reads = {
      all: async <T extends Row>(sql: string, params: unknown[] = []) => (await read(sql, params)).rows as T[],
      get: async <T extends Row>(sql: string, params: unknown[] = []) => (await read(sql, params)).rows[0] as T | undefined,
      run: async (sql: string, params: unknown[] = []) => (await read(sql, params)).rowCount ?? 0,
    };
  }

  /**
   * The {@link writes} without group commit, with `synchronousCommit` on: each is one autocommitted
   * statement on a pool of their own whose sessions commit without waiting for the WAL flush
   * (`synchronous_commit` off), noted so that the next {@link flush} waits for it (one barrier for every
   * commit before it). The server awaits that flush before an answer or an event counts, so what it
   * relies on is on disk as before; an instance's event chain, which runs these writes one run after
   * another, no longer waits for a disk flush at each. A commit is visible to every session at once, flushed
   * or not: reads on the other pool see it. The two pools share `poolSize` (this one half, rounded down).
   */
  private relaxedWrites(): Queryable {
    const write = async <R>(work: (q: Queryable) => Promise<R>): Promise<R> => {
      try {
        return await this.use(() => {
          if (!this.relaxed) throw new ServiceUnavailableError('postgres storage is not open');
          return work(queryable(this.relaxed));
        });
      } finally {
        // Also after a failure: a statement cut off after its COMMIT left may have committed.
        this.committedWithoutFlush();
      }
    };
    return {
      all: <T extends Row>(sql: string, params: unknown[] = []) => write((q) => q.all<T>(sql, params)),
      get: <T extends Row>(sql: string, params: unknown[] = []) => write((q) => q.get<T>(sql, params)),
      run: (sql: string, params: unknown[] = []) => write((q) => q.run(sql, params)),
    };
  }

  /**
   * Registers `listener`, told whenever writes that had been accepted are lost: a group commit whose
   * writes had run discarded instead of committed, or a {@link writeBehind} that failed.
   */
  onDiscard(listener: () => void): void {
    this.group.onDiscard(listener);
    this.discardListeners.add(listener);
  }

  /**
   * Starts a write through {@link writes} without waiting for it (an idempotent write nothing reads in the
   * same step: event-log appends, see {@link WriteBehind}), after the writes in flight that name any of
   * its `keys`. {@link flush} waits for it and rejects when it
   * failed (the {@link onDiscard} listeners are told first); {@link writtenBehind} waits for it either way.
   */
  writeBehind(keys: readonly string[], sql: string, params: unknown[]): void {
    this.behind.start(keys, () => this.writes.run(sql, params));
  }

  /** Resolves once the {@link writeBehind} writes in flight that name any of `keys` are over (a write of the same keys made otherwise awaits this first). */
  writtenBehindOf(keys: readonly string[]): Promise<void> {
    return this.behind.over(keys);
  }

  /** Resolves once every {@link writeBehind} started before the call is over (a read that must see them awaits this first). */
  writtenBehind(): Promise<void> {
    return this.behind.idle();
  }

  /** Resolves when the {@link writes} queued before the call are committed (not necessarily flushed to disk: see {@link flush}). */
  committedWrites(): Promise<void> {
    return this.group.flush();
  }

  get isOpen(): boolean {
    return this.pool !== null;
  }

  /** Opens the pool and migrates the schema; answers the schema version. */
  async open(): Promise<number> {
    if (this.pool) return this.transaction((tx) => migrate(tx, this.options.schema));
    const { schema, poolSize } = this.options;
    this.pool = this.newPool(poolSize - this.relaxedSize, this.options.synchronousCommit);
    this.relaxed = this.relaxedSize > 0 ? this.newPool(this.relaxedSize, 'off') : null;
    try {
      return await this.transaction((tx) => migrate(tx, schema));
    } catch (err) {
      await this.endPools();
      if (err instanceof ServiceUnavailableError) {
        throw new ServiceUnavailableError(`cannot connect to the postgres storage at ${this.target}: ${err.message}`);
      }
      throw err;
    }
  }

  /** A pool of at most `max` connections over the schema, whose sessions commit with `synchronousCommit`. */
  private newPool(max: number, synchronousCommit: 'on' | 'off'): pg.Pool {
    const { url, schema, timeoutMs } = this.options;
    const pool = new pg.Pool({
      connectionString: url,
      max,
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
      options: `-c search_path="${schema}" -c synchronous_commit=${synchronousCommit}`,
      types,
      // Shown in pg_stat_activity: which Parley storage (schema) a connection serves.
      application_name: `parley:${schema}`,
    });
    // An idle connection the server or the network dropped: the pool discards it; nothing is waiting on it.
    pool.on('error', (err) => this.options.logger?.warn({ postgres: this.target, err: redactUrlCredentials(err.message) }, 'postgres idle connection lost'));
    return pool;
  }

  async close(): Promise<void> {
    await this.group.close();
    await this.behind.idle();
    await this.endPools();
  }

  private async endPools(): Promise<void> {
    const pools = [this.pool, this.relaxed];
    this.pool = null;
    this.relaxed = null;
    await Promise.all(pools.map((pool) => pool?.end().catch(() => undefined)));
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
   * Resolves when every commit made before the call is on disk, the group commit of the {@link writes}
   * queued before it first (rejects when it was discarded). With `synchronousCommit` on, only commits
   * noted by {@link committedWithoutFlush} need it; with it off, every commit does. One autocommitted
   * statement is the barrier: it writes a WAL record (a transactional logical message, which any user
   * may emit and nothing but logical decoding reads), so its transaction commits with a flush, and with
   * `synchronous_commit` on it returns once the WAL is on disk up to its commit — which covers every
   * earlier commit of every session (the WAL is one sequence). Concurrent barriers share one flush.
   * (A transaction that writes no WAL record commits without a flush, whatever `synchronous_commit` says.)
   * The {@link writeBehind} writes started before the call are awaited first.
   */
  flush(): Promise<void> {
    return this.behind.settled().then(() => this.group.flush()).then(() => this.walFlush());
  }

  private walFlush(): Promise<void> {
    if (this.options.synchronousCommit === 'on' && !this.unflushed) return this.barrier ?? Promise.resolve();
    // One barrier at a time: the one in flight covers only the commits before its start, so the callers
    // that come meanwhile share the next one, started when it ends (PostgreSQL's own group commit shares
    // a disk flush the same way), instead of a statement and a flush each.
    if (this.barrier) {
      return (this.nextBarrier ??= this.barrier.catch(() => undefined).then(() => {
        this.nextBarrier = undefined;
        return this.startBarrier();
      }));
    }
    return this.startBarrier();
  }

  /** Starts a WAL barrier covering every commit made before it. */
  private startBarrier(): Promise<void> {
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
