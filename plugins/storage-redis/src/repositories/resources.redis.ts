import type { Chat, ChatRepository, Contact, ContactRepository, ScanPage, ScanRequest } from '@parley/core';
import { hashEntriesAfter } from '../hash-scan.js';
import { updateHashDocument, type DocumentGuesses } from '../hash-document.js';
import { compareIds, definedFields } from '../record-fields.js';
import type { RedisConnection } from '../redis-connection.js';

/**
 * Chats and contacts: one hash per instance, id → JSON. An upsert merges the given fields (undefined
 * ones ignored, null ones removed: a contact's `imgUrl`) into the stored document, or into the defaults
 * when new, by compare-and-set (starting from the text last read or written here, see {@link DocumentGuesses}).
 */
class RedisResourceRepository<T extends { id: string }> {
  constructor(
    private readonly connection: RedisConnection,
    private readonly key: (instance: string) => string,
    private readonly defaults: (id: string) => T,
    private readonly order: (a: T, b: T) => number,
    private readonly guesses: DocumentGuesses,
  ) {}

  async upsert(instance: string, resource: { [K in keyof T]?: T[K] | null } & { id: string }): Promise<T> {
    const given = definedFields(resource);
    const stored = await this.connection.run((client) => updateHashDocument<T>(client, this.key(instance), resource.id, (current) => {
      const next: Record<string, unknown> = { ...(current ?? this.defaults(resource.id)), ...given, id: resource.id };
      for (const [name, value] of Object.entries(given)) if (value === null) delete next[name];
      return next as T;
    }, this.guesses));
    return stored!;
  }

  async get(instance: string, id: string): Promise<T | null> {
    const key = this.key(instance);
    const raw = await this.connection.run((client) => client.hGet(key, id));
    this.guesses.remember(key, id, raw);
    return raw == null ? null : (JSON.parse(raw) as T);
  }

  async list(instance: string): Promise<T[]> {
    const all = await this.connection.run((client) => client.hVals(this.key(instance)));
    return all.map((raw) => JSON.parse(raw) as T).sort(this.order);
  }

  /** A page of the hash sorted by id (see {@link hashEntriesAfter}). */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<T>> {
    const { entries, next } = await this.connection.run((client) => hashEntriesAfter(client, this.key(instance), request.after, request.limit));
    const items = entries.map(([, raw]) => JSON.parse(raw) as T);
    return next === undefined ? { items } : { items, next };
  }

  async delete(instance: string, id: string): Promise<boolean> {
    this.guesses.forget(this.key(instance), id);
    return (await this.connection.run((client) => client.hDel(this.key(instance), id))) > 0;
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((client) => client.del(this.key(instance)));
  }
}

/** Chats, most recent activity first, ties by id. */
export class RedisChatRepository extends RedisResourceRepository<Chat> implements ChatRepository {
  constructor(connection: RedisConnection, key: (instance: string) => string, guesses: DocumentGuesses) {
    super(connection, key, (id) => ({ id, name: id, timestamp: 0, unreadCount: 0 }), (a, b) => b.timestamp - a.timestamp || compareIds(a.id, b.id), guesses);
  }
}

/** Contacts, ordered by id. */
export class RedisContactRepository extends RedisResourceRepository<Contact> implements ContactRepository {
  constructor(connection: RedisConnection, key: (instance: string) => string, guesses: DocumentGuesses) {
    super(connection, key, (id) => ({ id, name: '', notify: '' }), (a, b) => compareIds(a.id, b.id), guesses);
  }
}
