import { mergeContact, type Contact, type ContactRepository } from '@parley/core';
import { copyOf } from '../copy.js';
import { byId, Partitions } from '../partitions.js';

export class MemoryContactRepository implements ContactRepository {
  private readonly contacts = new Partitions<Contact>();

  async upsert(instance: string, contact: Partial<Contact> & { id: string }): Promise<Contact> {
    const partition = this.contacts.of(instance);
    const merged = copyOf(mergeContact(partition.get(contact.id) ?? null, contact));
    partition.set(contact.id, merged);
    return copyOf(merged);
  }

  async get(instance: string, id: string): Promise<Contact | null> {
    const contact = this.contacts.peek(instance).get(id);
    return contact ? copyOf(contact) : null;
  }

  async list(instance: string): Promise<Contact[]> {
    return [...this.contacts.peek(instance).values()].sort(byId).map(copyOf);
  }

  async delete(instance: string, id: string): Promise<boolean> {
    return this.contacts.existing(instance)?.delete(id) ?? false;
  }

  async clear(instance: string): Promise<void> {
    this.contacts.delete(instance);
  }
}
