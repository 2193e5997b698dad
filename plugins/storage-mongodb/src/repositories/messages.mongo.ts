import {
  MESSAGE_STATUS_RANK, messagePosition, scanPage, type MessageRecord, type MessageRepository, type MessageStatus, type Page, type PageRequest, type ScanPage,
  type ScanRequest,
} from '@parley/core';
import type { MongoCollections } from '../mongo-collections.js';
import { retryOnDuplicate, type MongoConnection } from '../mongo-connection.js';
import { documentToMessage, messageToDocument } from '../mongo-mappings.js';

const STATUSES = Object.keys(MESSAGE_STATUS_RANK) as MessageStatus[];

/**
 * Message history in one collection, partitioned by `instance`; listed newest first by numeric
 * timestamp then insertion sequence. Retention is a TTL index on `at` (see `applyRetention`).
 */
export class MongoMessageRepository implements MessageRepository {
  constructor(private readonly connection: MongoConnection, private readonly access: MongoCollections) {}

  async upsert(instance: string, record: MessageRecord): Promise<void> {
    await this.connection.run(async (db) => {
      const messages = this.access.messages(db);
      const filter = { instance, 'key.id': record.key.id };
      // A replaced message keeps its insertion sequence, so its place among equal timestamps.
      await retryOnDuplicate(async () => {
        const existing = await messages.findOne(filter, { projection: { seq: 1 } });
        const seq = existing?.seq ?? await this.access.nextSeq(db, 'messages');
        await messages.replaceOne(filter, messageToDocument(instance, record, seq), { upsert: true });
      });
    });
  }

  async get(instance: string, id: string): Promise<MessageRecord | null> {
    const document = await this.connection.run((db) => this.access.messages(db).findOne({ instance, 'key.id': id }));
    return document ? documentToMessage(document) : null;
  }

  async setStatus(instance: string, id: string, status: MessageStatus): Promise<boolean> {
    const rank = MESSAGE_STATUS_RANK[status];
    const movable = status === 'ERROR' ? STATUSES.filter((s) => s !== 'ERROR') : STATUSES.filter((s) => MESSAGE_STATUS_RANK[s] < rank);
    return this.connection.run(async (db) => {
      const messages = this.access.messages(db);
      // The rank check and the write are one atomic update.
      const { matchedCount } = await messages.updateOne({ instance, 'key.id': id, status: { $in: movable } }, { $set: { status } });
      return matchedCount > 0 || (await messages.countDocuments({ instance, 'key.id': id }, { limit: 1 })) > 0;
    });
  }

  async listByChat(instance: string, chatJid: string, page: PageRequest): Promise<Page<MessageRecord>> {
    const filter = { instance, 'key.remoteJid': chatJid };
    const skip = Math.max(0, (page.page - 1) * page.limit);
    const [documents, total] = await this.connection.run((db) => {
      const messages = this.access.messages(db);
      return Promise.all([
        page.limit > 0 ? messages.find(filter).sort({ ts: -1, seq: -1 }).skip(skip).limit(page.limit).toArray() : Promise.resolve([]),
        messages.countDocuments(filter),
      ]);
    });
    return { items: documents.map(documentToMessage), total };
  }

  async delete(instance: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.connection.run((db) => this.access.messages(db).deleteMany({ instance, 'key.id': { $in: ids } }));
    return result.deletedCount;
  }

  async deleteChat(instance: string, chatJid: string): Promise<number> {
    const result = await this.connection.run((db) => this.access.messages(db).deleteMany({ instance, 'key.remoteJid': chatJid }));
    return result.deletedCount;
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((db) => this.access.messages(db).deleteMany({ instance }));
  }

  /**
   * Ranges of the `chat_history` index read backwards (chats in descending order, each oldest first):
   * the rest of the position's chat, then the chats after it.
   */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<MessageRecord>> {
    const at = messagePosition.parse(request.after);
    const order = { 'key.remoteJid': -1, ts: 1, seq: 1 } as const;
    const documents = await this.connection.run(async (db) => {
      const messages = this.access.messages(db);
      const read = at ? await messages.find({ instance, 'key.remoteJid': at[0], $or: [{ ts: { $gt: at[1] } }, { ts: at[1], seq: { $gt: Number(at[2]) } }] })
        .sort(order).limit(request.limit).toArray() : [];
      if (read.length < request.limit) {
        read.push(...await messages.find(at ? { instance, 'key.remoteJid': { $lt: at[0] } } : { instance }).sort(order).limit(request.limit - read.length).toArray());
      }
      return read;
    });
    const page = scanPage(documents, request.limit, (d) => messagePosition.of(d.key.remoteJid, d.ts, d.seq));
    return { ...page, items: documents.map(documentToMessage) };
  }
}
