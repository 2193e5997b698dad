import { ulidFloor, type EventLog, type EventLogQuery, type LoggedEvent } from '@parley/core';
import type { PgDatabase } from '../pg-database.js';

/**
 * The log's entries before ULID $1: a range of the primary key bounded on both sides. With the upper bound
 * alone (`id < $1`), a plan made while the table was young took a sequential scan (a third of the table
 * expected), reading the whole log per purge once it grew; the lower bound, the log's first id (a probe of
 * the primary key's start), makes it a range of the index at any size. It holds every id, so nothing else changes.
 */
export const PURGE_EVENTS = 'DELETE FROM events WHERE id >= (SELECT min(id) FROM events) AND id < $1';

/**
 * The event log in the `events` table; the delivery queue's enqueue appends in its own transaction
 * (`delivery_enqueue`). The id is a ULID, so the primary key orders entries by time and a
 * purge is a range delete on it; one instance's page reads `events_by_instance`.
 *
 * An append alone is written behind (`PgDatabase.writeBehind`): it resolves at once, the server's next
 * `flush` waits for it, and this log's reads wait for it first — so it is readable here once `append`
 * resolves, and by other servers on the schema once a flush after it resolved.
 */
export class PgEventLog implements EventLog {
  constructor(private readonly db: PgDatabase) {}

  async append(entries: LoggedEvent[]): Promise<void> {
    if (entries.length === 0) return;
    this.db.writeBehind(entries.map((e) => e.id),
      `INSERT INTO events (id, instance, type, at, event)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) ON CONFLICT (id) DO NOTHING`,
      [entries.map((e) => e.id), entries.map((e) => e.instance), entries.map((e) => e.type), entries.map((e) => e.at), entries.map((e) => e.event)],
    );
  }

  async read({ instance, after, limit }: EventLogQuery): Promise<LoggedEvent[]> {
    await this.db.writtenBehind();
    const from = after ?? '';
    return instance === undefined
      ? this.db.reads.all<LoggedEvent & Record<string, unknown>>('SELECT id, instance, type, at, event FROM events WHERE id > $1 ORDER BY id LIMIT $2', [from, limit])
      : this.db.reads.all<LoggedEvent & Record<string, unknown>>(
        'SELECT id, instance, type, at, event FROM events WHERE instance = $1 AND id > $2 ORDER BY id LIMIT $3', [instance, from, limit],
      );
  }

  async purge(before: number): Promise<number> {
    await this.db.writtenBehind();
    return this.db.writes.run(PURGE_EVENTS, [ulidFloor(before)]);
  }

  /** After the appends in flight, so that none of them lands after it. */
  async clear(instance: string): Promise<void> {
    await this.db.writtenBehind();
    await this.db.writes.run('DELETE FROM events WHERE instance = $1', [instance]);
  }
}
