import type { AnyBulkWriteOperation } from 'mongodb';
import { authStatePosition, scanPage, type AuthStateEntry, type AuthStateRepository, type ScanPage, type ScanRequest } from '@parley/core';
import type { MongoCollections } from '../mongo-collections.js';
import { retryOnDuplicate, type MongoConnection } from '../mongo-connection.js';
import type { AuthStateDocument } from '../mongo-documents.js';

/**
 * Auth state entries, one document each. A `set` is one transaction on replica sets and sharded
 * clusters (all entries or none become visible); on a standalone server, which has no transactions,
 * it is one ordered bulk write that a concurrent reader may observe half-applied.
 */
export class MongoAuthStateRepository implements AuthStateRepository {
  constructor(private readonly connection: MongoConnection, private readonly collections: MongoCollections) {}

  async get(instance: string, category: string, ids: string[]): Promise<Record<string, string>> {
    if (ids.length === 0) return {};
    const documents = await this.connection.run((db) =>
      this.collections.authState(db).find({ instance, category, id: { $in: ids } }, { projection: { _id: 0, id: 1, value: 1 } }).toArray());
    const out: Record<string, string> = {};
    for (const document of documents) out[document.id] = document.value;
    return out;
  }

  async set(instance: string, entries: { category: string; id: string; value: string | null }[]): Promise<void> {
    if (entries.length === 0) return;
    const operations: AnyBulkWriteOperation<AuthStateDocument>[] = entries.map(({ category, id, value }) => (value === null
      ? { deleteOne: { filter: { instance, category, id } } }
      : { replaceOne: { filter: { instance, category, id }, replacement: { instance, category, id, value }, upsert: true } }));
    await retryOnDuplicate(() => this.connection.runAtomically((db, session) =>
      this.collections.authState(db).bulkWrite(operations, { ordered: true, ...(session ? { session } : {}) })));
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((db) => this.collections.authState(db).deleteMany({ instance }));
  }

  /** A range of the `auth_entry` index (instance, category, id). */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<AuthStateEntry>> {
    const after = authStatePosition.parse(request.after);
    const filter = after ? { instance, $or: [{ category: { $gt: after[0] } }, { category: after[0], id: { $gt: after[1] } }] } : { instance };
    const items = await this.connection.run((db) => this.collections.authState(db).find(filter, { projection: { _id: 0, category: 1, id: 1, value: 1 } })
      .sort({ category: 1, id: 1 }).limit(request.limit).toArray());
    return scanPage(items.map(({ category, id, value }) => ({ category, id, value })), request.limit, authStatePosition.of);
  }
}
