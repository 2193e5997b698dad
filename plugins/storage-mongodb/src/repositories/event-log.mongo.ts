import { ulidFloor, type EventLog, type EventLogQuery, type LoggedEvent } from '@parley/core';
import type { EventDocument, MongoCollections } from '../mongo-collections.js';
import type { MongoConnection } from '../mongo-connection.js';

function toEntry({ _id, instance, type, at, event }: EventDocument): LoggedEvent {
  return { id: _id, instance, type, at, event };
}

/**
 * The event log in the `events` collection: the id is `_id` (a ULID, so `_id` order is time order
 * and the default index serves reads of all instances and purges); `event_instance` pages one
 * instance.
 */
export class MongoEventLog implements EventLog {
  constructor(private readonly connection: MongoConnection, private readonly collections: MongoCollections) {}

  async append(entries: LoggedEvent[]): Promise<void> {
    if (entries.length === 0) return;
    // Upserts with $setOnInsert: a logged id is left as it is, and the batch never fails on one.
    await this.connection.run((db) => this.collections.events(db).bulkWrite(entries.map(({ id, instance, type, at, event }) => ({
      updateOne: { filter: { _id: id }, update: { $setOnInsert: { instance, type, at, event } }, upsert: true },
    })), { ordered: false }));
  }

  async read({ instance, after, limit }: EventLogQuery): Promise<LoggedEvent[]> {
    const filter = { ...(instance === undefined ? {} : { instance }), ...(after === undefined ? {} : { _id: { $gt: after } }) };
    const documents = await this.connection.run((db) => this.collections.events(db).find(filter).sort({ _id: 1 }).limit(limit).toArray());
    return documents.map(toEntry);
  }

  async purge(before: number): Promise<number> {
    return (await this.connection.run((db) => this.collections.events(db).deleteMany({ _id: { $lt: ulidFloor(before) } }))).deletedCount;
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((db) => this.collections.events(db).deleteMany({ instance }));
  }
}
