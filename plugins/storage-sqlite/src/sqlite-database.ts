import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { privateExistingFile, privateFile, PRIVATE_DIR_MODE, ServiceUnavailableError, type StorageHealth } from '@parley/core';
import { BackgroundCheckpointer } from './background-checkpointer.js';
import { corruptionAdvice } from './integrity-check.js';
import { migrate } from './migrations.js';
import {
  BACKGROUND_AFTER_WRITES, BUSY_TIMEOUT_MS, WAL_AUTOCHECKPOINT_PAGES, WAL_BACKSTOP_PAGES, type SqliteDatabaseOptions,
} from './sqlite-settings.js';
import { isCorruption, SqliteHealth, sqliteCode, unavailable, type ProbeResult } from './sqlite-health.js';

/** Bind parameters and rows as the repositories use them. */
export type Params = Record<string, unknown> | unknown[];
export type Row = Record<string, unknown>;
/** Registers how to reverse a write just made, inside {@link SqliteDatabase.undoable}. */
export type Undo = (reverse: () => void) => void;

/**
 * The probe of {@link SqliteHealth} writes this much (64 pages), in a row it deletes again: room for
 * it means room for a batch, not only for what a full disk's WAL file has left.
 */
const WRITE_PROBE_BYTES = 256 << 10;
const WRITE_PROBE = "INSERT OR REPLACE INTO state (namespace, id, value) VALUES ('parley.sqlite', 'write-probe', zeroblob(?))";
const WRITE_PROBE_DONE = "DELETE FROM state WHERE namespace = 'parley.sqlite' AND id = 'write-probe'";

/** The writes of one event-loop turn, committed together. */
interface Batch {
  done: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * One better-sqlite3 connection with its statement cache. better-sqlite3 is synchronous, so every
 * call below runs to its end without interleaving with another request of this process; transactions
 * guard against other processes on the same file.
 *
 * Group commit: the writes of one event-loop turn share one transaction, opened at the turn's first
 * write and committed on the next turn (`setImmediate`). A commit writes each changed page to the
 * WAL once per turn instead of once per statement, which is most of the cost of small writes. A
 * write is visible to this connection at once; {@link SqliteDatabase.flush} resolves when it is
 * durable, and callers that promise durability (queue enqueue, API answers) await it. Because a turn
 * holds the write lock until it commits, a file is served by one SqliteDatabase per process (other
 * processes wait at most one turn).
 */
export class SqliteDatabase {
  private db: Database.Database | null = null;
  private readonly statements = new Map<string, Database.Statement<unknown[], Row>>();
  private batch: Batch | null = null;
  /** The end of the last batch (rejected when its commit failed). */
  private lastDone: Promise<void> = Promise.resolve();
  private readonly beforeCommitHooks = new Set<() => void>();
  private readonly discardListeners = new Set<() => void>();
  private checkpointer: BackgroundCheckpointer | null = null;
  private writes = 0;
  /** Names the current batch's state: see {@link SqliteDatabase.lockedEpoch}. */
  private epoch = 0;
  private readonly health: SqliteHealth;

  constructor(
    readonly file: string,
    private readonly options: SqliteDatabaseOptions,
  ) {
    this.health = new SqliteHealth(options.health, () => this.probeWrite());
  }

  get isOpen(): boolean {
    return this.db !== null;
  }

  /** Opens the file (creating its directory), sets the pragmas and migrates. Answers the schema version. */
  open(): number {
    if (this.db) return this.schemaVersion();
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: PRIVATE_DIR_MODE });
      this.makeFilesPrivate();
      const db = new Database(this.file);
      try {
        // WAL lets readers run beside the writer. With WAL, synchronous=NORMAL syncs at checkpoints
        // rather than at every commit: a committed transaction survives a crash of the process (it is
        // in the WAL file the OS holds); only an OS crash or power loss can drop the last commits, and
        // never corrupts the file. That is the durability a message gateway needs at a fraction of FULL's cost.
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
        migrate(db);
      } catch (err) {
        db.close();
        throw err;
      }
      this.db = db;
      return this.schemaVersion();
    } catch (err) {
      const code = sqliteCode(err);
      if (isCorruption(code)) throw new ServiceUnavailableError(`${corruptionAdvice(this.file)} (${code}: ${(err as Error).message})`);
      throw unavailable(err, `cannot open sqlite database ${this.file}`);
    }
  }

  /** The file was found damaged after it opened (the integrity check): the store is not ready from now on. */
  damaged(detail: string): void {
    this.health.damaged(detail);
  }

  /**
   * The file holds every key and session of the gateway: it is created 0600 before SQLite opens it,
   * and SQLite gives the -wal and -shm files it creates the database file's mode. Files left with
   * looser modes (by an older Parley or a copy) are tightened.
   */
  private makeFilesPrivate(): void {
    const tightened: string[] = [];
    if (privateFile(this.file)) tightened.push(this.file);
    for (const file of [`${this.file}-wal`, `${this.file}-shm`]) if (privateExistingFile(file)) tightened.push(file);
    if (tightened.length > 0) this.options.onPermissionsTightened(tightened);
  }

  /** Commits what is pending, stops the background checkpoints and closes the file. */
  async close(): Promise<void> {
    this.health.stop();
    const checkpointer = this.checkpointer;
    this.checkpointer = null;
    await checkpointer?.stop();
    this.commitBatch();
    this.statements.clear();
    this.db?.close();
    this.db = null;
  }

  /** Readiness: not ready while the file is damaged or writes fail (see {@link SqliteHealth}). */
  check(): StorageHealth {
    return this.health.check(() => this.get('SELECT 1 AS ok'));
  }

  /**
   * One probe write in transactions of its own, between batches only (synchronous, so no other write
   * joins it): a probe that fails must not take anyone's writes down with it.
   */
  private probeWrite(): ProbeResult {
    const db = this.db;
    if (!db || this.batch) return 'skipped';
    try {
      for (const [sql, params] of [[WRITE_PROBE, [WRITE_PROBE_BYTES]], [WRITE_PROBE_DONE, []]] as const) {
        db.exec('BEGIN IMMEDIATE');
        this.statement(sql).run(...params);
        db.exec('COMMIT');
      }
      return 'wrote';
    } catch {
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
      } catch {
        // SQLite ended the transaction itself; nothing is left to undo.
      }
      return 'failed';
    }
  }

  schemaVersion(): number {
    return this.use((db) => db.pragma('user_version', { simple: true }) as number);
  }

  /** Runs a writing statement (compiled once per connection) in this turn's batch; answers its changes. */
  run(sql: string, params: Params = []): number {
    return this.use((db) => {
      this.beginBatch(db);
      return this.statement(sql).run(...spread(params)).changes;
    });
  }

  /** The first row a writing statement answers (`RETURNING`), run in this turn's batch, or undefined. */
  write<T extends Row>(sql: string, params: Params = []): T | undefined {
    return this.use((db) => {
      this.beginBatch(db);
      return this.statement(sql).get(...spread(params)) as T | undefined;
    });
  }

  /** The first row of a statement, or undefined. */
  get<T extends Row>(sql: string, params: Params = []): T | undefined {
    return this.use(() => this.statement(sql).get(...spread(params)) as T | undefined);
  }

  /** Every row of a statement. */
  all<T extends Row>(sql: string, params: Params = []): T[] {
    return this.use(() => this.statement(sql).all(...spread(params)) as T[]);
  }

  /**
   * Runs `work` inside this turn's batch, which holds the write lock, without a savepoint: for reads
   * followed by a single write, which is atomic by itself (a read-merge-write never races another
   * connection, and a failed write leaves nothing to roll back).
   */
  locked<T>(work: () => T): T {
    return this.use((db) => {
      this.beginBatch(db);
      return work();
    });
  }

  /**
   * Runs `work` atomically inside this turn's batch (a savepoint: a failure rolls back `work` only).
   * The batch holds the write lock from its BEGIN IMMEDIATE, so a read-then-write never races another
   * connection.
   */
  transaction<T>(work: () => T): T {
    return this.use((db) => {
      this.beginBatch(db);
      // Cached SAVEPOINT statements: better-sqlite3's db.transaction() would build (and prepare) a
      // wrapper on every call, which costs more than the small writes it wraps.
      this.statement('SAVEPOINT op').run();
      try {
        const result = work();
        this.statement('RELEASE op').run();
        return result;
      } catch (err) {
        // SQLite may have rolled the whole transaction back itself (disk full, I/O error): no savepoint is left.
        this.epoch++;
        if (db.inTransaction) {
          this.statement('ROLLBACK TO op').run();
          this.statement('RELEASE op').run();
        }
        throw err;
      }
    });
  }

  /**
   * Like {@link SqliteDatabase.transaction} without its SAVEPOINT and RELEASE (two statements, and the
   * copies of the pages a savepoint journals), for work of few writes each of which one statement can
   * reverse: `work` registers after each write how to reverse it (`undo`). When a later statement fails
   * with the batch still open, the registered reversals run, newest first, which leaves the batch as a
   * rollback to a savepoint would; should a reversal fail too, the whole batch is rolled back (its
   * other writers fail with it, through {@link flush}). When SQLite rolled the batch back itself, so
   * has everything `work` wrote.
   */
  undoable<T>(work: (undo: Undo) => T): T {
    return this.use((db) => {
      this.beginBatch(db);
      const reversals: (() => void)[] = [];
      try {
        return work((reverse) => reversals.push(reverse));
      } catch (err) {
        this.epoch++;
        const batch = this.batch;
        if (batch && db.inTransaction && reversals.length > 0) {
          try {
            for (const reverse of reversals.reverse()) reverse();
          } catch (undoFailed) {
            if (this.batch === batch) this.abandonBatch(batch, unavailable(undoFailed, 'sqlite write could not be undone'));
          }
        }
        throw err;
      }
    });
  }

  /**
   * Like {@link SqliteDatabase.transaction}, then commits the turn's batch at once: for leases that
   * other connections (processes) must see before this turn ends. Throws when that commit fails: the
   * batch was rolled back, `work`'s writes with it, and an answer built on them would be a lie (a
   * lease that is not held). Every other write of the batch fails with it, through {@link flush}.
   */
  transactionNow<T>(work: () => T): T {
    const result = this.transaction(work);
    const failure = this.commitBatch();
    if (failure) throw failure.error;
    return result;
  }

  /**
   * Runs `hook` inside the current batch just before it commits, once however often it is
   * registered during the batch: writes that many calls of a turn would repeat (counters) are
   * gathered and written once. Call it only while a batch is open (after a write).
   */
  beforeCommit(hook: () => void): void {
    this.beforeCommitHooks.add(hook);
  }

  /**
   * A number naming the open batch while one is (undefined between batches). The batch holds the write
   * lock, so a row read now stays as read until this number changes, except where this connection
   * writes it: it changes when the batch ends (committed or rolled back) and when a savepoint inside it
   * is rolled back (which may undo writes a reader kept). Lets a repository keep what it read or wrote
   * under the lock and spare reading it again in the same batch.
   */
  lockedEpoch(): number | undefined {
    return this.batch ? this.epoch : undefined;
  }

  /**
   * Registers `listener`, told whenever a batch is rolled back instead of committed: what a
   * repository keeps in memory for its batch's commit (counters, sends not written yet) goes with it.
   */
  onDiscard(listener: () => void): void {
    this.discardListeners.add(listener);
  }

  /**
   * Resolves when every write made so far is committed (rejects when that commit failed). Between
   * batches it answers how the last one ended: a write whose batch another caller committed early
   * ({@link transactionNow}) and saw fail is a failure for its own caller's flush too.
   */
  flush(): Promise<void> {
    return this.batch?.done ?? this.lastDone;
  }

  private beginBatch(db: Database.Database): void {
    if (++this.writes === BACKGROUND_AFTER_WRITES) this.startBackgroundCheckpoints(db);
    if (this.batch) return;
    db.exec('BEGIN IMMEDIATE');
    this.epoch++;
    const { promise: done, resolve, reject } = Promise.withResolvers<void>();
    // A failed commit is reported to whoever awaits flush(); nobody awaiting it is not an error.
    done.catch(() => undefined);
    this.batch = { done, resolve, reject };
    this.lastDone = done;
    setImmediate(() => this.commitBatch());
  }

  /** Commits the batch; answers the failure (also given to whoever awaits {@link flush}) when it did not. */
  private commitBatch(): { error: unknown } | undefined {
    const batch = this.batch;
    if (!batch) return undefined;
    try {
      // The hooks write into this batch, so it stays the current one while they run.
      for (const hook of this.beforeCommitHooks) hook();
      this.beforeCommitHooks.clear();
      this.batch = null;
      this.db?.exec('COMMIT');
      batch.resolve();
      return undefined;
    } catch (err) {
      this.health.failed(err);
      return this.abandonBatch(batch, unavailable(err, 'sqlite commit failed'));
    }
  }

  /** Rolls `batch` back (unless SQLite already did) and fails everyone awaiting it. */
  private abandonBatch(batch: Batch, error: unknown): { error: unknown } {
    this.beforeCommitHooks.clear();
    for (const listener of this.discardListeners) listener();
    if (this.batch === batch) this.batch = null;
    try {
      if (this.db?.inTransaction) this.db.exec('ROLLBACK');
    } catch {
      // The transaction is already gone; the failure below is what matters.
    }
    batch.reject(error);
    return { error };
  }

  /** Hands checkpoints to a worker thread; the writer's own automatic checkpoint becomes the backstop. */
  private startBackgroundCheckpoints(db: Database.Database): void {
    if (!this.options.backgroundCheckpoints) return;
    this.checkpointer = new BackgroundCheckpointer(this.file, this.options.onCheckpointError);
    db.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
  }

  private statement(sql: string): Database.Statement<unknown[], Row> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.use((db) => db.prepare<unknown[], Row>(sql));
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private use<T>(work: (db: Database.Database) => T): T {
    const db = this.db;
    if (!db) throw new ServiceUnavailableError('sqlite storage is not open');
    try {
      return work(db);
    } catch (err) {
      this.health.failed(err);
      const error = unavailable(err, 'sqlite storage unavailable');
      // A failed statement after which no transaction is open: SQLite rolled the whole batch back
      // (as it may on a full disk or an I/O error), so every write of it so far is lost and its
      // callers must hear it, not a commit of whatever comes next.
      if (this.batch && !db.inTransaction) this.abandonBatch(this.batch, error);
      throw error;
    }
  }
}

/** Named parameters bind as one object, positional ones as arguments. */
function spread(params: Params): unknown[] {
  return Array.isArray(params) ? params : [params];
}
