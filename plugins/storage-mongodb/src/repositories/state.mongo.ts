import { scanPage, type ScanPage, type ScanRequest, type StateRepository } from '@parley/core';
import type { MongoCollections } from '../mongo-collections.js';
import { retryOnDuplicate, type MongoConnection } from '../mongo-connection.js';
import { documentToState, stateToDocument } from '../mongo-mappings.js';

/** Plugin state documents by namespace and id, the value kept as JSON text. */
export class MongoStateRepository implements StateRepository {
  constructor(private readonly connection: MongoConnection, private readonly collections: MongoCollections) {}

  async get<T = unknown>(namespace: string, id: string): Promise<T | null> {
    const document = await this.connection.run((db) => this.collections.state(db).findOne({ namespace, id }));
    return document ? documentToState<T>(document) : null;
  }

  async put(namespace: string, id: string, value: unknown): Promise<void> {
    await this.connection.run((db) => retryOnDuplicate(() =>
      this.collections.state(db).replaceOne({ namespace, id }, stateToDocument(namespace, id, value), { upsert: true })));
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    return (await this.connection.run((db) => this.collections.state(db).deleteOne({ namespace, id }))).deletedCount > 0;
  }

  async list<T = unknown>(namespace: string): Promise<{ id: string; value: T }[]> {
    const documents = await this.connection.run((db) => this.collections.state(db).find({ namespace }).sort({ id: 1 }).toArray());
    return documents.map((document) => ({ id: document.id, value: documentToState<T>(document) }));
  }

  /** A range of the unique (namespace, id) index. */
  async scan<T = unknown>(namespace: string, request: ScanRequest): Promise<ScanPage<{ id: string; value: T }>> {
    const filter = request.after === undefined ? { namespace } : { namespace, id: { $gt: request.after } };
    const documents = await this.connection.run((db) => this.collections.state(db).find(filter).sort({ id: 1 }).limit(request.limit).toArray());
    return scanPage(documents.map((document) => ({ id: document.id, value: documentToState<T>(document) })), request.limit, (document) => document.id);
  }

  async listNamespaces(prefix: string): Promise<string[]> {
    const names = await this.connection.run((db) => this.collections.state(db).distinct('namespace', { namespace: { $regex: `^${escapeRegex(prefix)}` } }));
    return (names as string[]).sort();
  }

  async clearPrefix(prefix: string): Promise<void> {
    await this.connection.run((db) => this.collections.state(db).deleteMany({ namespace: { $regex: `^${escapeRegex(prefix)}` } }));
  }
}

/** `text` as a regular expression matching itself literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
