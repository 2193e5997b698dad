import {
  decodeStored, encodeStored, mergeChat, mergeContact, scanPage, type Chat, type ChatRepository, type Contact, type ContactChange, type ContactRepository, type ScanPage,
  type ScanRequest,
} from '@parley/core';
import type { LookupKind } from '../key-lookups.js';
import type { PgDatabase } from '../pg-database.js';

/** Where one kind of resource is stored. Table and column names are constants of this file, never input. */
interface ResourceTable<T, P> {
  table: string;
  /** Its kind of {@link PgDatabase.lookups} and {@link PgDatabase.upserts}, which `get` and `upsert` go through. */
  lookup: Exclude<LookupKind, 'message'>;
  /** The jsonb column holding the document. */
  column: string;
  /** `ORDER BY` of `list`. */
  order: string;
  /** The core merge of the repository contract, for a resource that does not exist yet. */
  merge(current: T | null, patch: P): T;
}

/**
 * Chats and contacts: one row per (instance, id) holding the resource as jsonb. An upsert is one
 * statement: a new resource is the contract's merge over its defaults, an existing one gets the given
 * fields with jsonb's `||` (a shallow merge, as the core's; fields given as null, a contact's `imgUrl`,
 * removed), under the row lock of ON CONFLICT, so concurrent upserts never lose fields.
 */
class PgResourceRepository<T extends { id: string }, P extends { id: string } = Partial<T> & { id: string }> {
  constructor(private readonly db: PgDatabase, private readonly spec: ResourceTable<T, P>) {}

  /** One write of the turn's statement ({@link PgDatabase.upserts}). */
  async upsert(instance: string, resource: P): Promise<T> {
    const removed = Object.entries(resource).filter(([, value]) => value === null).map(([name]) => name);
    // created: the contract's merge over the defaults, for a new resource; patch: the given fields alone,
    // all a stored one gets (else the defaults would overwrite what it holds); removed: those given as null.
    const doc = await this.db.upserts.resource(this.spec.lookup, {
      instance, id: resource.id, created: encodeStored(this.spec.merge(null, resource)), patch: encodeStored(resource), removed,
    });
    return decodeStored<T>(doc);
  }

  /** A lookup of the turn's statement ({@link PgDatabase.lookups}), with the other key reads made beside it. */
  async get(instance: string, id: string): Promise<T | null> {
    const row = await this.db.lookups.get(this.spec.lookup, instance, id);
    return row ? decodeStored<T>(row.doc) : null;
  }

  async list(instance: string): Promise<T[]> {
    const { table, column, order } = this.spec;
    return (await this.db.reads.all<{ doc: string }>(`SELECT ${column}::text AS doc FROM ${table} WHERE instance = $1 ORDER BY ${order}`, [instance]))
      .map((row) => decodeStored<T>(row.doc));
  }

  /** A range of the primary key (instance, id). */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<T>> {
    const { table, column } = this.spec;
    const rows = await this.db.reads.all<{ doc: string }>(`SELECT ${column}::text AS doc FROM ${table} WHERE instance = $1 AND id > $2 ORDER BY id LIMIT $3`,
      [instance, request.after ?? '', request.limit]);
    return scanPage(rows.map((row) => decodeStored<T>(row.doc)), request.limit, (resource) => resource.id);
  }

  async delete(instance: string, id: string): Promise<boolean> {
    return await this.db.writes.run(`DELETE FROM ${this.spec.table} WHERE instance = $1 AND id = $2`, [instance, id]) > 0;
  }

  async clear(instance: string): Promise<void> {
    await this.db.writes.run(`DELETE FROM ${this.spec.table} WHERE instance = $1`, [instance]);
  }
}

/** Chats, most recent activity first (the `timestamp` column), ties by id. */
export class PgChatRepository extends PgResourceRepository<Chat> implements ChatRepository {
  constructor(db: PgDatabase) {
    super(db, { table: 'chats', lookup: 'chat', column: 'chat', order: 'timestamp DESC, id', merge: mergeChat });
  }
}

/** Contacts, ordered by id. */
export class PgContactRepository extends PgResourceRepository<Contact, ContactChange> implements ContactRepository {
  constructor(db: PgDatabase) {
    super(db, { table: 'contacts', lookup: 'contact', column: 'contact', order: 'id', merge: mergeContact });
  }
}
