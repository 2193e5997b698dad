import { decodeStored, encodeStored, mergeContact, type Contact, type ContactRepository } from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';

type ContactRow = { contact: string };

export class SqliteContactRepository implements ContactRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async upsert(instance: string, contact: Partial<Contact> & { id: string }): Promise<Contact> {
    return this.db.transaction(() => {
      const text = encodeStored(mergeContact(this.read(instance, contact.id), contact));
      this.db.run('INSERT OR REPLACE INTO contacts (instance, id, contact) VALUES (?, ?, ?)', [instance, contact.id, text]);
      return decodeStored<Contact>(text);
    });
  }

  async get(instance: string, id: string): Promise<Contact | null> {
    return this.read(instance, id);
  }

  async list(instance: string): Promise<Contact[]> {
    return this.db.all<ContactRow>('SELECT contact FROM contacts WHERE instance = ? ORDER BY id', [instance])
      .map((row) => decodeStored<Contact>(row.contact));
  }

  async delete(instance: string, id: string): Promise<boolean> {
    return this.db.run('DELETE FROM contacts WHERE instance = ? AND id = ?', [instance, id]) > 0;
  }

  async clear(instance: string): Promise<void> {
    this.db.run('DELETE FROM contacts WHERE instance = ?', [instance]);
  }

  private read(instance: string, id: string): Contact | null {
    const row = this.db.get<ContactRow>('SELECT contact FROM contacts WHERE instance = ? AND id = ?', [instance, id]);
    return row ? decodeStored<Contact>(row.contact) : null;
  }
}
