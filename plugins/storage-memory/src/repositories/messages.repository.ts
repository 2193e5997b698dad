import {
  messagePosition, scanPage, statusAdvances, type MessageRecord, type MessageRepository, type MessageStatus, type Page, type PageRequest, type ScanPage,
  type ScanRequest,
} from '@parley/core';
import { ChatOrders } from '../chat-order.js';
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
  private readonly orders = new Map<string, ChatOrders<StoredMessage>>();
  private seq = 0;

  private ordersOf(instance: string): ChatOrders<StoredMessage> {
    let orders = this.orders.get(instance);
    if (!orders) this.orders.set(instance, orders = new ChatOrders());
    return orders;
  }

  async upsert(instance: string, record: MessageRecord): Promise<void> {
    const partition = this.messages.of(instance);
    const orders = this.ordersOf(instance);
    const existing = partition.get(record.key.id);
    if (existing) orders.remove(existing.record.key.remoteJid, existing);
    const stored = { record: copyOf(record), timestamp: Number(record.messageTimestamp) || 0, seq: existing?.seq ?? ++this.seq };
    partition.set(record.key.id, stored);
    orders.add(record.key.remoteJid, stored);
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
    const { items, total } = this.orders.get(instance)?.page(chatJid, page.page, page.limit) ?? { items: [], total: 0 };
    return { items: items.map((stored) => copyOf(stored.record)), total };
  }

  async delete(instance: string, ids: string[]): Promise<number> {
    const partition = this.messages.existing(instance);
    if (!partition) return 0;
    let deleted = 0;
    for (const id of ids) {
      const stored = partition.get(id);
      if (!stored) continue;
      partition.delete(id);
      this.ordersOf(instance).remove(stored.record.key.remoteJid, stored);
      deleted++;
    }
    return deleted;
  }

  async deleteChat(instance: string, chatJid: string): Promise<number> {
    const inChat = this.orders.get(instance)?.take(chatJid) ?? [];
    const partition = this.messages.existing(instance);
    for (const stored of inChat) partition?.delete(stored.record.key.id);
    return inChat.length;
  }

  async scan(instance: string, request: ScanRequest): Promise<ScanPage<MessageRecord>> {
    const at = messagePosition.parse(request.after);
    const cursor = at && { chat: at[0], at: { timestamp: at[1], seq: Number(at[2]) } };
    const items = this.orders.get(instance)?.scan(cursor, request.limit) ?? [];
    const page = scanPage(items, request.limit, (m) => messagePosition.of(m.record.key.remoteJid, m.timestamp, m.seq));
    return { ...page, items: items.map((m) => copyOf(m.record)) };
  }

  async clear(instance: string): Promise<void> {
    this.messages.delete(instance);
    this.orders.delete(instance);
  }
}
