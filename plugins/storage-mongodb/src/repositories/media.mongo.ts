import { PayloadTooLargeError, scanPage, type MediaBlob, type MediaRepository, type ScanPage, type ScanRequest } from '@parley/core';
import type { MongoCollections } from '../mongo-collections.js';
import { retryOnDuplicate, type MongoConnection } from '../mongo-connection.js';
import { documentToMedia, mediaToDocument } from '../mongo-mappings.js';

/** Largest media kept in one document: MongoDB documents stop at 16 MiB, metadata included. */
export const MAX_MEDIA_BYTES = 16 * 1024 * 1024 - 64 * 1024;

/** Media bytes as BSON binary, one document per message. */
export class MongoMediaRepository implements MediaRepository {
  constructor(private readonly connection: MongoConnection, private readonly collections: MongoCollections) {}

  async put(instance: string, messageId: string, blob: MediaBlob): Promise<void> {
    if (blob.data.length > MAX_MEDIA_BYTES) {
      throw new PayloadTooLargeError(`media of ${blob.data.length} bytes exceeds the ${MAX_MEDIA_BYTES} bytes the MongoDB storage keeps`, { limit: MAX_MEDIA_BYTES });
    }
    const document = mediaToDocument(instance, messageId, blob);
    await this.connection.run((db) => retryOnDuplicate(() =>
      this.collections.media(db).replaceOne({ instance, messageId }, document, { upsert: true })));
  }

  async get(instance: string, messageId: string): Promise<MediaBlob | null> {
    const document = await this.connection.run((db) => this.collections.media(db).findOne({ instance, messageId }));
    return document ? documentToMedia(document) : null;
  }

  async delete(instance: string, messageId: string): Promise<boolean> {
    const result = await this.connection.run((db) => this.collections.media(db).deleteOne({ instance, messageId }));
    return result.deletedCount > 0;
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((db) => this.collections.media(db).deleteMany({ instance }));
  }

  /** A range of the `media_id` index; the bytes stay unread. */
  async scanIds(instance: string, request: ScanRequest): Promise<ScanPage<string>> {
    const filter = request.after === undefined ? { instance } : { instance, messageId: { $gt: request.after } };
    const documents = await this.connection.run((db) => this.collections.media(db).find(filter, { projection: { _id: 0, messageId: 1 } })
      .sort({ messageId: 1 }).limit(request.limit).toArray());
    return scanPage(documents.map((document) => document.messageId), request.limit, (id) => id);
  }
}
