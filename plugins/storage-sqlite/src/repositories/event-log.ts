import { ulidFloor, type EventLog, type EventLogQuery, type LoggedEvent } from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';

/**
 * The event log in the `events` table (migration 4). Appends join the current write batch (group
 * commit) and resolve at once, durable when the batch commits ({@link SqliteDatabase.flush}); purges
 * delete a range of the primary key, since an id starts with its time.
 */
export class SqliteEventLog implements EventLog {
  constructor(private readonly db: SqliteDatabase) {}

  async append(entries: LoggedEvent[]): Promise<void> {
    if (entries.length === 0) return;
    this.db.transaction(() => this.appendNow(entries));
  }

  /** The inserts of {@link append}, in the caller's transaction (the delivery queue's enqueue). */
  appendNow(entries: readonly LoggedEvent[]): void {
    for (const e of entries) {
      this.db.run('INSERT INTO events (id, instance, type, at, event) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING', [e.id, e.instance, e.type, e.at, e.event]);
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
