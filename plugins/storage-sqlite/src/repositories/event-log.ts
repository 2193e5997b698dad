import { ulidFloor, type EventLog, type EventLogQuery, type LoggedEvent } from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';

/**
 * Entries per INSERT statement: an append of up to this many is one statement (atomic by itself, so
 * it needs no savepoint); one statement text per row count up to it is compiled and cached. Five
 * parameters a row stay far below SQLite's bound on parameters (32,766).
 */
const ROWS_PER_INSERT = 64;

/** The multi-row inserts: `INSERTS[n - 1]` writes n entries (1 ≤ n ≤ {@link ROWS_PER_INSERT}); a logged id is kept as it was. */
const INSERTS = Array.from({ length: ROWS_PER_INSERT }, (_, i) =>
  `INSERT INTO events (id, instance, type, at, event) VALUES ${Array(i + 1).fill('(?, ?, ?, ?, ?)').join(', ')} ON CONFLICT (id) DO NOTHING`);

/**
 * The event log in the `events` table (migration 4). Appends join the current write batch (group
 * commit) and resolve at once, durable when the batch commits ({@link SqliteDatabase.flush}); purges
 * delete a range of the primary key, since an id starts with its time.
 */
export class SqliteEventLog implements EventLog {
  constructor(private readonly db: SqliteDatabase) {}

  async append(entries: LoggedEvent[]): Promise<void> {
    this.appendInBatch(entries);
  }

  /** What {@link append} writes, synchronously, in the current batch (the delivery queue's `enqueueInBatch`). */
  appendInBatch(entries: readonly LoggedEvent[]): void {
    if (entries.length === 0) return;
    // One statement is atomic by itself; several (a long run) share a savepoint.
    if (entries.length <= ROWS_PER_INSERT) this.db.locked(() => this.appendNow(entries));
    else this.db.transaction(() => this.appendNow(entries));
  }

  /**
   * The inserts of {@link append}, in the caller's transaction (the delivery queue's enqueue): one
   * statement per {@link ROWS_PER_INSERT} entries (bench/rest-send, issue 26: a statement and a
   * savepoint per entry cost more than the rows).
   */
  appendNow(entries: readonly LoggedEvent[]): void {
    for (let from = 0; from < entries.length; from += ROWS_PER_INSERT) {
      const chunk = entries.slice(from, from + ROWS_PER_INSERT);
      const params: unknown[] = [];
      for (const e of chunk) params.push(e.id, e.instance, e.type, e.at, e.event);
      this.db.run(INSERTS[chunk.length - 1]!, params);
    }
  }

  async read({ instance, after, limit }: EventLogQuery): Promise<LoggedEvent[]> {
    const from = after ?? '';
    return instance === undefined
      ? this.db.all<LoggedEvent & Record<string, unknown>>('SELECT id, instance, type, at, event FROM events WHERE id > +? ORDER BY id LIMIT ?', [from, limit])
      : this.db.all<LoggedEvent & Record<string, unknown>>(
        'SELECT id, instance, type, at, event FROM events WHERE instance = +? AND id > +? ORDER BY id LIMIT ?', [instance, from, limit],
      );
  }

  async purge(before: number): Promise<number> {
    const count = this.db.run('DELETE FROM events WHERE id < +?', [ulidFloor(before)]);
    await this.db.flush();
    return count;
  }

  async clear(instance: string): Promise<void> {
    this.db.run('DELETE FROM events WHERE instance = +?', [instance]);
    await this.db.flush();
  }
}
