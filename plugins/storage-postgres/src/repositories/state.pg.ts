import { decodeStored, encodeStored, scanPage, type Fence, type ScanPage, type ScanRequest, type StateRepository } from '@parley/core';
import { writeStatements } from '../cluster/fenced.js';
import type { PgDatabase } from '../pg-database.js';

/** Plugins' small documents by namespace and id; a write with a fence applies only while its token is current (writeStatements). */
export class PgStateRepository implements StateRepository {
  constructor(private readonly db: PgDatabase) {}

  async get<T = unknown>(namespace: string, id: string): Promise<T | null> {
    const row = await this.db.reads.get<{ value: string }>('SELECT value FROM state WHERE namespace = $1 AND id = $2', [namespace, id]);
    return row ? decodeStored<T>(row.value) : null;
  }

  async put(namespace: string, id: string, value: unknown, fence?: Fence): Promise<void> {
    await writeStatements(fence ? this.db : this.db.writes, fence, ['INSERT INTO state (namespace, id, value) VALUES ($1, $2, $3) ON CONFLICT (namespace, id) DO UPDATE SET value = excluded.value'],
      [namespace, id, encodeStored(value ?? null)]);
  }

  async delete(namespace: string, id: string, fence?: Fence): Promise<boolean> {
    return await writeStatements(fence ? this.db : this.db.writes, fence, ['DELETE FROM state WHERE namespace = $1 AND id = $2'], [namespace, id]) > 0;
  }

  async list<T = unknown>(namespace: string): Promise<{ id: string; value: T }[]> {
    return (await this.db.reads.all<{ id: string; value: string }>('SELECT id, value FROM state WHERE namespace = $1 ORDER BY id', [namespace]))
      .map((row) => ({ id: row.id, value: decodeStored<T>(row.value) }));
  }

  /** A range of the primary key (namespace, id). */
  async scan<T = unknown>(namespace: string, request: ScanRequest): Promise<ScanPage<{ id: string; value: T }>> {
    const rows = await this.db.reads.all<{ id: string; value: string }>('SELECT id, value FROM state WHERE namespace = $1 AND id > $2 ORDER BY id LIMIT $3',
      [namespace, request.after ?? '', request.limit]);
    return scanPage(rows.map((row) => ({ id: row.id, value: decodeStored<T>(row.value) })), request.limit, (document) => document.id);
  }

  /** A range of the primary key, the prefix compared literally as in {@link clearPrefix}. */
  async listNamespaces(prefix: string): Promise<string[]> {
    return (await this.db.reads.all<{ namespace: string }>(
      'SELECT DISTINCT namespace FROM state WHERE namespace >= $1 AND left(namespace, length($1)) = $1 ORDER BY namespace', [prefix],
    )).map((row) => row.namespace);
  }

  /** A literal prefix comparison on the primary key's range: LIKE would read `_` and `%` in the prefix as wildcards. */
  async clearPrefix(prefix: string, fence?: Fence): Promise<void> {
    await writeStatements(fence ? this.db : this.db.writes, fence, ['DELETE FROM state WHERE namespace >= $1 AND left(namespace, length($1)) = $1'], [prefix]);
  }
}
