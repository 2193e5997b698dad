import type { Chat, ChatRepository } from '@parley/core';
import { compareIds, definedFields, updateHashDocument } from '../hash-document.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from '../redis-keys.js';

/** Chats of an instance in one hash, id → chat JSON. */
export class RedisChatRepository implements ChatRepository {
  constructor(private readonly connection: RedisConnection, private readonly keys: RedisKeys) {}

  async upsert(instance: string, chat: Partial<Chat> & { id: string }): Promise<Chat> {
    const given = definedFields(chat);
    const stored = await this.connection.run((client) => updateHashDocument<Chat>(client, this.keys.chats(instance), chat.id, (current) => ({
      ...(current ?? { id: chat.id, name: chat.id, timestamp: 0, unreadCount: 0 }),
      ...given,
      id: chat.id,
    })));
    return stored!;
  }

  async get(instance: string, id: string): Promise<Chat | null> {
    const raw = await this.connection.run((client) => client.hGet(this.keys.chats(instance), id));
    return raw == null ? null : (JSON.parse(raw) as Chat);
  }

  async list(instance: string): Promise<Chat[]> {
    const all = await this.connection.run((client) => client.hVals(this.keys.chats(instance)));
    return all.map((raw) => JSON.parse(raw) as Chat).sort((a, b) => b.timestamp - a.timestamp || compareIds(a.id, b.id));
  }

  async delete(instance: string, id: string): Promise<boolean> {
    return (await this.connection.run((client) => client.hDel(this.keys.chats(instance), id))) > 0;
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((client) => client.del(this.keys.chats(instance)));
  }
}
