import { mergeChat, type Chat, type ChatRepository } from '@parley/core';
import { copyOf } from '../copy.js';
import { byId, Partitions } from '../partitions.js';

export class MemoryChatRepository implements ChatRepository {
  private readonly chats = new Partitions<Chat>();

  async upsert(instance: string, chat: Partial<Chat> & { id: string }): Promise<Chat> {
    const partition = this.chats.of(instance);
    const merged = copyOf(mergeChat(partition.get(chat.id) ?? null, chat));
    partition.set(chat.id, merged);
    return copyOf(merged);
  }

  async get(instance: string, id: string): Promise<Chat | null> {
    const chat = this.chats.peek(instance).get(id);
    return chat ? copyOf(chat) : null;
  }

  async list(instance: string): Promise<Chat[]> {
    return [...this.chats.peek(instance).values()].sort((a, b) => b.timestamp - a.timestamp || byId(a, b)).map(copyOf);
  }

  async delete(instance: string, id: string): Promise<boolean> {
    return this.chats.existing(instance)?.delete(id) ?? false;
  }

  async clear(instance: string): Promise<void> {
    this.chats.delete(instance);
  }
}
