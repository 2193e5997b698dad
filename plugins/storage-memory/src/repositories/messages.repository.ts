import {
  statusAdvances, type MessageRecord, type MessageRepository, type MessageStatus, type Page, type PageRequest,
} from '@parley/core';
import { copyOf } from '../copy.js';
import { Partitions } from '../partitions.js';

interface StoredMessage {
  record: MessageRecord;
  /** Numeric `messageTimestamp`: text order would put "999" after "1000". */
  timestamp: number;
  /** First insertion rank; a replace keeps it. */
  seq: number;
}

export class MemoryMessageRepository implements MessageRepository {
  private readonly messages = new Partitions<StoredMessage>();
  private seq = 0;

  async upsert(instance: string, record: MessageRecord): Promise<void> {
    const partition = this.messages.of(instance);
    const seq = partition.get(record.key.id)?.seq ?? ++this.seq;
    partition.set(record.key.id, { record: copyOf(record), timestamp: Number(record.messageTimestamp) || 0, seq });
  }

  async get(instance: string, id: string): Promise<MessageRecord | null> {
    const stored = this.messages.peek(instance).get(id);
    return stored ? copyOf(stored.record) : null;
  }

  async setStatus(instance: string, id: string, status: MessageStatus): Promise<boolean> {
    const stored = this.messages.peek(instance).get(id);
    if (!stored) return false;
    if (statusAdvances(stored.record.status, status)) stored.record.status = status;
    return true;
  }

  async listByChat(instance: string, chatJid: string, page: PageRequest): Promise<Page<MessageRecord>> {
    const inChat = [...this.messages.peek(instance).values()]
      .filter((stored) => stored.record.key.remoteJid === chatJid)
      .sort((a, b) => b.timestamp - a.timestamp || b.seq - a.seq);
    const offset = (page.page - 1) * page.limit;
    return { items: inChat.slice(offset, offset + page.limit).map((stored) => copyOf(stored.record)), total: inChat.length };
  }

  async delete(instance: string, ids: string[]): Promise<number> {
    const partition = this.messages.existing(instance);
    return partition ? ids.filter((id) => partition.delete(id)).length : 0;
  }

  async deleteChat(instance: string, chatJid: string): Promise<number> {
    const partition = this.messages.existing(instance);
    if (!partition) return 0;
    const inChat = [...partition].filter(([, stored]) => stored.record.key.remoteJid === chatJid);
    for (const [id] of inChat) partition.delete(id);
    return inChat.length;
  }

  async clear(instance: string): Promise<void> {
    this.messages.delete(instance);
  }
}
