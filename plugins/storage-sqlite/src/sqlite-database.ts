import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ServiceUnavailableError } from '@parley/core';
import { migrate } from './migrations.js';

/** Bind parameters and rows as the repositories use them. */
export type Params = Record<string, unknown> | unknown[];
export type Row = Record<string, unknown>;

/** Result codes that mean "the store cannot be reached right now", answered as HTTP 503. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOLFS)/;

/** How long a writer waits for another connection's lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * One better-sqlite3 connection with its statement cache. better-sqlite3 is synchronous, so every
 * call below runs to its end without interleaving with another request of this process; transactions
 * guard against other processes on the same file.
 */
export class SqliteDatabase {
  private db: Database.Database | null = null;
  private readonly statements = new Map<string, Database.Statement<unknown[], Row>>();

  constructor(readonly file: string) {}

  get isOpen(): boolean {
    return this.db !== null;
  }

  /** Opens the file (creating its directory), sets the pragmas and migrates. Answers the schema version. */
  open(): number {
    if (this.db) return this.schemaVersion();
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const db = new Database(this.file);
      try {
        // WAL lets readers run beside the writer. With WAL, synchronous=NORMAL syncs at checkpoints
        // rather than at every commit: a committed transaction survives a crash of the process (it is
        // in the WAL file the OS holds); only an OS crash or power loss can drop the last commits, and
        // never corrupts the file. That is the durability a message gateway needs at a fraction of FULL's cost.
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        migrate(db);
      } catch (err) {
        db.close();
        throw err;
      }
      this.db = db;
      return this.schemaVersion();
    } catch (err) {
      throw unavailable(err, `cannot open sqlite database ${this.file}`);
    }
  }

  close(): void {
    this.statements.clear();
    this.db?.close();
    this.db = null;
  }

  schemaVersion(): number {
    return this.use((db) => db.pragma('user_version', { simple: true }) as number);
  }

  /** Runs a statement (compiled once per connection) for its changes. */
  run(sql: string, params: Params = []): number {
    return this.use(() => this.statement(sql).run(...spread(params)).changes);
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
   * Runs `work` in one IMMEDIATE transaction: the write lock is taken at BEGIN, so a read-then-write
   * never races another connection, and a failure rolls everything back.
   */
  transaction<T>(work: () => T): T {
    return this.use((db) => db.transaction(work).immediate());
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
      throw unavailable(err, 'sqlite storage unavailable');
    }
  }
}

/** Maps an unreachable-store error onto ServiceUnavailableError; anything else passes through. */
function unavailable(err: unknown, message: string): unknown {
  if (err instanceof Database.SqliteError && UNAVAILABLE.test(err.code)) {
    return new ServiceUnavailableError(`${message}: ${err.code}`);
  }
  return err;
}

/** Named parameters bind as one object, positional ones as arguments. */
function spread(params: Params): unknown[] {
  return Array.isArray(params) ? params : [params];
}
