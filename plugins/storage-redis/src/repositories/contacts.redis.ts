import type { Contact, ContactRepository } from '@parley/core';
import { compareIds, definedFields, updateHashDocument } from '../hash-document.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from '../redis-keys.js';

/** Contacts of an instance in one hash, id → contact JSON. */
export class RedisContactRepository implements ContactRepository {
  constructor(private readonly connection: RedisConnection, private readonly keys: RedisKeys) {}

  async upsert(instance: string, contact: Partial<Contact> & { id: string }): Promise<Contact> {
    const given = definedFields(contact);
    const stored = await this.connection.run((client) => updateHashDocument<Contact>(client, this.keys.contacts(instance), contact.id, (current) => ({
      ...(current ?? { id: contact.id, name: '', notify: '' }),
      ...given,
      id: contact.id,
    })));
    return stored!;
  }

  async get(instance: string, id: string): Promise<Contact | null> {
    const raw = await this.connection.run((client) => client.hGet(this.keys.contacts(instance), id));
    return raw == null ? null : (JSON.parse(raw) as Contact);
  }

  async list(instance: string): Promise<Contact[]> {
    const all = await this.connection.run((client) => client.hVals(this.keys.contacts(instance)));
    return all.map((raw) => JSON.parse(raw) as Contact).sort((a, b) => compareIds(a.id, b.id));
  }

  async delete(instance: string, id: string): Promise<boolean> {
    return (await this.connection.run((client) => client.hDel(this.keys.contacts(instance), id))) > 0;
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((client) => client.del(this.keys.contacts(instance)));
  }
}
