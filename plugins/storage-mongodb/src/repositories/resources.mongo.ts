import type { Collection, Db, Sort } from 'mongodb';
import { scanPage, type Chat, type ChatRepository, type Contact, type ContactRepository, type ScanPage, type ScanRequest } from '@parley/core';
import type { MongoCollections } from '../mongo-collections.js';
import { retryOnDuplicate, type MongoConnection } from '../mongo-connection.js';
import { documentToResource, mergeUpsert, type PartitionedDocument, type ResourceChange } from '../mongo-mappings.js';

/**
 * Chats and contacts: one collection each, partitioned by `instance`, unique by id. An upsert is one
 * findOneAndUpdate: given fields are `$set`, null ones `$unset`, defaults of the others `$setOnInsert`.
 */
class MongoResourceRepository<T extends { id: string }> {
  constructor(
    private readonly connection: MongoConnection,
    private readonly collection: (db: Db) => Collection<PartitionedDocument<T>>,
    private readonly defaults: (id: string) => Omit<T, 'id'>,
    private readonly order: Sort,
  ) {}

  async upsert(instance: string, resource: ResourceChange<T>): Promise<T> {
    const { filter, update } = mergeUpsert<T>(instance, resource, this.defaults(resource.id));
    const document = await this.connection.run(async (db) => {
      const collection = this.untyped(db);
      return retryOnDuplicate(() => collection.findOneAndUpdate(filter, update, { upsert: true, returnDocument: 'after' }));
    });
    return documentToResource(document as unknown as PartitionedDocument<T>);
  }

  async get(instance: string, id: string): Promise<T | null> {
    const document = await this.connection.run((db) => this.untyped(db).findOne({ instance, id }));
    return document ? documentToResource(document as unknown as PartitionedDocument<T>) : null;
  }

  async list(instance: string): Promise<T[]> {
    const documents = await this.connection.run((db) => this.untyped(db).find({ instance }).sort(this.order).toArray());
    return documents.map((document) => documentToResource(document as unknown as PartitionedDocument<T>));
  }

  /** A range of the unique (instance, id) index. */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<T>> {
    const filter = request.after === undefined ? { instance } : { instance, id: { $gt: request.after } };
    const documents = await this.connection.run((db) => this.untyped(db).find(filter).sort({ id: 1 }).limit(request.limit).toArray());
    return scanPage(documents.map((document) => documentToResource(document as unknown as PartitionedDocument<T>)), request.limit, (resource) => resource.id);
  }

  async delete(instance: string, id: string): Promise<boolean> {
    return (await this.connection.run((db) => this.untyped(db).deleteOne({ instance, id }))).deletedCount > 0;
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((db) => this.untyped(db).deleteMany({ instance }));
  }

  // The driver's filter typing cannot follow a generic document type.
  private untyped(db: Db): Collection {
    return this.collection(db) as unknown as Collection;
  }
}

/** Chats, most recent activity first, ties by id. */
export class MongoChatRepository extends MongoResourceRepository<Chat> implements ChatRepository {
  constructor(connection: MongoConnection, collections: MongoCollections) {
    super(connection, (db) => collections.chats(db), (id) => ({ name: id, timestamp: 0, unreadCount: 0 }), { timestamp: -1, id: 1 });
  }
}

/** Contacts, ordered by id. */
export class MongoContactRepository extends MongoResourceRepository<Contact> implements ContactRepository {
  constructor(connection: MongoConnection, collections: MongoCollections) {
    super(connection, (db) => collections.contacts(db), () => ({ name: '', notify: '' }), { id: 1 });
  }
}
