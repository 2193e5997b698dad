import { decodeStored, encodeStored, mergeChat, type Chat, type ChatRepository } from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';

type ChatRow = { chat: string };

export class SqliteChatRepository implements ChatRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async upsert(instance: string, chat: Partial<Chat> & { id: string }): Promise<Chat> {
    return this.db.transaction(() => {
      const merged = mergeChat(this.read(instance, chat.id), chat);
      const text = encodeStored(merged);
      this.db.run('INSERT OR REPLACE INTO chats (instance, id, timestamp, chat) VALUES (?, ?, ?, ?)', [instance, chat.id, merged.timestamp, text]);
      return decodeStored<Chat>(text);
    });
  }

  async get(instance: string, id: string): Promise<Chat | null> {
    return this.read(instance, id);
  }

  async list(instance: string): Promise<Chat[]> {
    return this.db.all<ChatRow>('SELECT chat FROM chats WHERE instance = ? ORDER BY timestamp DESC, id', [instance])
      .map((row) => decodeStored<Chat>(row.chat));
  }

  async delete(instance: string, id: string): Promise<boolean> {
    return this.db.run('DELETE FROM chats WHERE instance = ? AND id = ?', [instance, id]) > 0;
  }

  async clear(instance: string): Promise<void> {
    this.db.run('DELETE FROM chats WHERE instance = ?', [instance]);
  }

  private read(instance: string, id: string): Chat | null {
    const row = this.db.get<ChatRow>('SELECT chat FROM chats WHERE instance = ? AND id = ?', [instance, id]);
    return row ? decodeStored<Chat>(row.chat) : null;
  }
}
