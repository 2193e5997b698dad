import {
  decodeStored, encodeStored, mergeChat, mergeContact, scanPage, type Chat, type ChatRepository, type Contact, type ContactChange, type ContactRepository, type ScanPage,
  type ScanRequest,
} from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';
import { BatchKept } from './batch-kept.js';

/** Where and how one kind of resource is stored. Table and column names are constants of this file, never input. */
interface ResourceTable<T, P> {
  table: string;
  /** The column holding the JSON document. */
  column: string;
  /** Columns written beside the document, from the merged document, for `order`. */
  sortColumns: Record<string, (resource: T) => number>;
  /** `ORDER BY` of `list`. */
  order: string;
  /** The core merge of the repository contract (given fields over the stored resource or the defaults). */
  merge(current: T | null, patch: P): T;
}

/**
 * Chats and contacts: one row per (instance, id) holding the resource as JSON. An upsert reads,
 * merges and writes under the batch's write lock, so concurrent upserts never lose fields.
 *
 * What a batch read or wrote is kept for it ({@link BatchKept}): the store projector reads a chat and
 * then upserts it in the same batch, and the upsert's own read is answered from memory (issue 26: one
 * chat read per send fewer).
 */
class SqliteResourceRepository<T extends { id: string }, P extends { id: string } = Partial<T> & { id: string }> {
  private readonly insert: string;
  /**
   * Built once: the statement cache is keyed by the SQL text, and a text built per call is hashed and
   * compared in full at every lookup (bench/rest-send, issue 26).
   */
  private readonly select: string;
  private readonly scanSql: string;
  /** The open batch's documents (null: none), by `instance\nid`, as stored text. */
  private readonly kept: BatchKept<string | null>;

  constructor(private readonly db: SqliteDatabase, private readonly spec: ResourceTable<T, P>) {
    const columns = ['instance', 'id', ...Object.keys(spec.sortColumns), spec.column];
    this.insert = `INSERT OR REPLACE INTO ${spec.table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    this.select = `SELECT ${spec.column} FROM ${spec.table} WHERE instance = +? AND id = +?`;
    this.scanSql = `SELECT id, ${spec.column} FROM ${spec.table} WHERE instance = +? AND id > +? ORDER BY id LIMIT ?`;
    this.kept = new BatchKept(db);
  }

  async upsert(instance: string, resource: P): Promise<T> {
    return this.db.locked(() => {
      const merged = this.spec.merge(this.read(instance, resource.id), resource);
      const text = encodeStored(merged);
      const sortValues = Object.values(this.spec.sortColumns).map((value) => value(merged));
      this.db.run(this.insert, [instance, resource.id, ...sortValues, text]);
      this.kept.set(`${instance}\n${resource.id}`, text);
      // A copy, so the caller never holds the objects of its own patch through the answer.
      return decodeStored<T>(text);
    });
  }

  async get(instance: string, id: string): Promise<T | null> {
    return this.read(instance, id);
  }

  async list(instance: string): Promise<T[]> {
    const { table, column, order } = this.spec;
    return this.db.all<Record<string, string>>(`SELECT ${column} FROM ${table} WHERE instance = +? ORDER BY ${order}`, [instance])
      .map((row) => decodeStored<T>(row[column]!));
  }

  /** A range of the primary key (instance, id). */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<T>> {
    const items = this.db.all<Record<string, string>>(this.scanSql, [instance, request.after ?? '', request.limit]).map((row) => decodeStored<T>(row[this.spec.column]!));
    return scanPage(items, request.limit, (resource) => resource.id);
  }

  async delete(instance: string, id: string): Promise<boolean> {
    const deleted = this.db.run(`DELETE FROM ${this.spec.table} WHERE instance = +? AND id = +?`, [instance, id]) > 0;
    this.kept.set(`${instance}\n${id}`, null);
    return deleted;
  }

  async clear(instance: string): Promise<void> {
    this.db.run(`DELETE FROM ${this.spec.table} WHERE instance = +?`, [instance]);
    this.kept.clear();
  }

  private read(instance: string, id: string): T | null {
    const key = `${instance}\n${id}`;
    let text = this.kept.get(key);
    if (text === undefined) {
      text = this.db.get<Record<string, string>>(this.select, [instance, id])?.[this.spec.column] ?? null;
      this.kept.set(key, text);
    }
    return text === null ? null : decodeStored<T>(text);
  }
}

/** Chats, most recent activity first (the `timestamp` column), ties by id. */
export class SqliteChatRepository extends SqliteResourceRepository<Chat> implements ChatRepository {
  constructor(db: SqliteDatabase) {
    super(db, { table: 'chats', column: 'chat', sortColumns: { timestamp: (chat) => chat.timestamp }, order: 'timestamp DESC, id', merge: mergeChat });
  }
}

/** Contacts, ordered by id. */
export class SqliteContactRepository extends SqliteResourceRepository<Contact, ContactChange> implements ContactRepository {
  constructor(db: SqliteDatabase) {
    super(db, { table: 'contacts', column: 'contact', sortColumns: {}, order: 'id', merge: mergeContact });
  }
}
