import { decodeStored, encodeStored, scanPage, type ScanPage, type ScanRequest, type StateRepository } from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';

export class SqliteStateRepository implements StateRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async get<T = unknown>(namespace: string, id: string): Promise<T | null> {
    const row = this.db.get<{ value: string }>('SELECT value FROM state WHERE namespace = +? AND id = +?', [namespace, id]);
    return row ? decodeStored<T>(row.value) : null;
  }

  async put(namespace: string, id: string, value: unknown): Promise<void> {
    this.db.run('INSERT OR REPLACE INTO state (namespace, id, value) VALUES (?, ?, ?)', [namespace, id, encodeStored(value ?? null)]);
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    return this.db.run('DELETE FROM state WHERE namespace = +? AND id = +?', [namespace, id]) > 0;
  }

  async list<T = unknown>(namespace: string): Promise<{ id: string; value: T }[]> {
    return this.db.all<{ id: string; value: string }>('SELECT id, value FROM state WHERE namespace = +? ORDER BY id', [namespace])
      .map((row) => ({ id: row.id, value: decodeStored<T>(row.value) }));
  }

  /** A range of the primary key (namespace, id). */
  async scan<T = unknown>(namespace: string, request: ScanRequest): Promise<ScanPage<{ id: string; value: T }>> {
    const items = this.db.all<{ id: string; value: string }>('SELECT id, value FROM state WHERE namespace = +? AND id > +? ORDER BY id LIMIT ?',
      [namespace, request.after ?? '', request.limit]).map((row) => ({ id: row.id, value: decodeStored<T>(row.value) }));
    return scanPage(items, request.limit, (document) => document.id);
  }

  /** A range of the primary key, the prefix compared literally as in {@link clearPrefix}. */
  async listNamespaces(prefix: string): Promise<string[]> {
    return this.db.all<{ namespace: string }>(
      'SELECT DISTINCT namespace FROM state WHERE namespace >= +@prefix AND substr(namespace, 1, length(@prefix)) = @prefix ORDER BY namespace', { prefix },
    ).map((row) => row.namespace);
  }

  /** A literal prefix comparison: LIKE and GLOB would read `_`, `%` and `*` in the prefix as wildcards. */
  async clearPrefix(prefix: string): Promise<void> {
    this.db.run('DELETE FROM state WHERE namespace >= +@prefix AND substr(namespace, 1, length(@prefix)) = @prefix', { prefix });
  }
}
