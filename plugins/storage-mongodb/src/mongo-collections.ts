import type { Collection, Db, IndexDescription } from 'mongodb';
import { retryOnDuplicate } from './mongo-connection.js';
import type {
  AuthStateDocument, ClaimDocument, CounterDocument, IdempotencyDocument, LaneDocument, OutboundDocument, StatsDocument,
} from './mongo-documents.js';
import type {
  DeliveryDocument, InstanceDocument, MediaDocument, MessageDocument, PartitionedDocument, StateDocument,
} from './mongo-mappings.js';
import type { Chat, Contact, LoggedEvent } from '@parley/core';

/** An event-log entry as stored: its id is the document `_id`. */
export type EventDocument = Omit<LoggedEvent, 'id'> & { _id: string };

/** Collection names of the back end, behind an optional prefix. */
export class MongoCollections {
  constructor(private readonly prefix: string) {}

  private name(base: string): string {
    return `${this.prefix}${base}`;
  }

  instances(db: Db): Collection<InstanceDocument> { return db.collection(this.name('instances')); }
  claims(db: Db): Collection<ClaimDocument> { return db.collection(this.name('instance_claims')); }
  messages(db: Db): Collection<MessageDocument> { return db.collection(this.name('messages')); }
  chats(db: Db): Collection<PartitionedDocument<Chat>> { return db.collection(this.name('chats')); }
  contacts(db: Db): Collection<PartitionedDocument<Contact>> { return db.collection(this.name('contacts')); }
  media(db: Db): Collection<MediaDocument> { return db.collection(this.name('media')); }
  authState(db: Db): Collection<AuthStateDocument> { return db.collection(this.name('auth_state')); }
  state(db: Db): Collection<StateDocument> { return db.collection(this.name('state')); }
  deliveries(db: Db): Collection<DeliveryDocument> { return db.collection(this.name('deliveries')); }
  /** One document per non-empty lane: its head, when it is next claimable, and its lease. */
  lanes(db: Db): Collection<LaneDocument> { return db.collection(this.name('delivery_lanes')); }
  stats(db: Db): Collection<StatsDocument> { return db.collection(this.name('delivery_stats')); }
  counters(db: Db): Collection<CounterDocument> { return db.collection(this.name('counters')); }
  events(db: Db): Collection<EventDocument> { return db.collection(this.name('events')); }
  outbound(db: Db): Collection<OutboundDocument> { return db.collection(this.name('outbound')); }
  /** One document per paused instance (`_id` = instance id). */
  outboundPaused(db: Db): Collection<{ _id: string }> { return db.collection(this.name('outbound_paused')); }
  idempotency(db: Db): Collection<IdempotencyDocument> { return db.collection(this.name('idempotency_keys')); }

  /** Allocates `count` consecutive sequence numbers of `name`; answers the first. */
  async nextSeq(db: Db, name: string, count = 1): Promise<number> {
    const after = await retryOnDuplicate(() =>
      this.counters(db).findOneAndUpdate({ _id: name }, { $inc: { value: count } }, { upsert: true, returnDocument: 'after' }));
    return after!.value - count + 1;
  }
}

/** Name of the TTL index that enforces message retention. */
export const MESSAGE_RETENTION_INDEX = 'message_retention';

/** Indexes of the message, chat and contact collections (shared with the per-instance external database). */
export const HISTORY_INDEXES: { messages: IndexDescription[]; chats: IndexDescription[]; contacts: IndexDescription[] } = {
  messages: [
    { key: { instance: 1, 'key.id': 1 }, name: 'message_id', unique: true },
    { key: { instance: 1, 'key.remoteJid': 1, ts: -1, seq: -1 }, name: 'chat_history' },
  ],
  chats: [
    { key: { instance: 1, id: 1 }, name: 'chat_id', unique: true },
    { key: { instance: 1, timestamp: -1, id: 1 }, name: 'chat_activity' },
  ],
  contacts: [{ key: { instance: 1, id: 1 }, name: 'contact_id', unique: true }],
};

/** Creates every index of the back end (idempotent) and applies the message retention. */
export async function ensureIndexes(db: Db, collections: MongoCollections, retentionDays: number): Promise<void> {
  await Promise.all([
    collections.instances(db).createIndexes([
      { key: { key: 1 }, name: 'instance_key', unique: true }, { key: { createdAt: 1, seq: 1 }, name: 'instance_order' },
      { key: { seq: 1 }, name: 'instance_seq' },
    ]),
    collections.claims(db).createIndexes([
      { key: { namespace: 1, value: 1 }, name: 'claim_value', unique: true }, { key: { instance: 1 }, name: 'claim_instance' },
    ]),
    collections.messages(db).createIndexes(HISTORY_INDEXES.messages),
    collections.chats(db).createIndexes(HISTORY_INDEXES.chats),
    collections.contacts(db).createIndexes(HISTORY_INDEXES.contacts),
    collections.media(db).createIndexes([{ key: { instance: 1, messageId: 1 }, name: 'media_id', unique: true }]),
    collections.authState(db).createIndexes([{ key: { instance: 1, category: 1, id: 1 }, name: 'auth_entry', unique: true }]),
    collections.state(db).createIndexes([{ key: { namespace: 1, id: 1 }, name: 'state_id', unique: true }]),
    collections.deliveries(db).createIndexes([
      { key: { lane: 1, state: 1, seq: 1 }, name: 'lane_order' },
      { key: { instance: 1, state: 1, deadAt: 1, seq: 1 }, name: 'dead_letters' },
      { key: { state: 1, deadAt: 1 }, name: 'dead_age' },
    ]),
    collections.outbound(db).createIndexes([
      { key: { dueAt: 1, seq: 1 }, name: 'outbound_due' }, { key: { instance: 1, lane: 1, order: 1, seq: 1 }, name: 'outbound_lanes' },
      { key: { instance: 1, dueAt: 1, seq: 1 }, name: 'outbound_instance' }, { key: { leasedUntil: 1 }, name: 'outbound_leases', sparse: true },
    ]),
    collections.lanes(db).createIndexes([{ key: { dueAt: 1, headSeq: 1 }, name: 'lane_due' }, { key: { instance: 1 }, name: 'lane_instance' }]),
    collections.events(db).createIndexes([{ key: { instance: 1, _id: 1 }, name: 'event_instance' }]),
    // Expired idempotency keys leave on their own (MongoDB's TTL monitor runs about once a minute).
    collections.idempotency(db).createIndexes([{ key: { removeAt: 1 }, name: 'idempotency_expiry', expireAfterSeconds: 0 }]),
  ]);
  await applyRetention(db, collections.messages(db).collectionName, retentionDays);
}

/**
 * Makes the TTL index on `at` match `retentionDays`: created, changed in place (collMod), or dropped
 * when retention is 0.
 */
export async function applyRetention(db: Db, collectionName: string, retentionDays: number): Promise<void> {
  const collection = db.collection(collectionName);
  const existing = (await collection.indexes()).find((index) => index.name === MESSAGE_RETENTION_INDEX);
  if (retentionDays <= 0) {
    if (existing) await collection.dropIndex(MESSAGE_RETENTION_INDEX);
    return;
  }
  const expireAfterSeconds = retentionDays * 86_400;
  if (!existing) {
    await collection.createIndex({ at: 1 }, { name: MESSAGE_RETENTION_INDEX, expireAfterSeconds });
  } else if (existing.expireAfterSeconds !== expireAfterSeconds) {
    await db.command({ collMod: collectionName, index: { name: MESSAGE_RETENTION_INDEX, expireAfterSeconds } });
  }
}
