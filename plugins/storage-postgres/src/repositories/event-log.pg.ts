import { ulidFloor, type EventLog, type EventLogQuery, type LoggedEvent } from '@parley/core';
import type { PgDatabase } from '../pg-database.js';

/**
 * The event log in the `events` table; the delivery queue's enqueue appends in its own transaction
 * (`delivery_enqueue`). The id is a ULID, so the primary key orders entries by time and a
 * purge is a range delete on it; one instance's page reads `events_by_instance`.
 */
export class PgEventLog implements EventLog {
  constructor(private readonly db: PgDatabase) {}

  async append(entries: LoggedEvent[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.writes.run(
      `INSERT INTO events (id, instance, type, at, event)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) ON CONFLICT (id) DO NOTHING`,
      [entries.map((e) => e.id), entries.map((e) => e.instance), entries.map((e) => e.type), entries.map((e) => e.at), entries.map((e) => e.event)],
    );
  }

  async read({ instance, after, limit }: EventLogQuery): Promise<LoggedEvent[]> {
    const from = after ?? '';
    return instance === undefined
      ? this.db.reads.all<LoggedEvent & Record<string, unknown>>('SELECT id, instance, type, at, event FROM events WHERE id > $1 ORDER BY id LIMIT $2', [from, limit])
      : this.db.reads.all<LoggedEvent & Record<string, unknown>>(
        'SELECT id, instance, type, at, event FROM events WHERE instance = $1 AND id > $2 ORDER BY id LIMIT $3', [instance, from, limit],
      );
  }

  async purge(before: number): Promise<number> {
    return this.db.writes.run('DELETE FROM events WHERE id < $1', [ulidFloor(before)]);
  }

  async clear(instance: string): Promise<void> {
    await this.db.writes.run('DELETE FROM events WHERE instance = $1', [instance]);
  }
}
