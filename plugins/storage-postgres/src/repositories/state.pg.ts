import { decodeStored, encodeStored, type StateRepository } from '@parley/core';
import type { PgDatabase } from '../pg-database.js';

/** Plugins' small documents by namespace and id. */
export class PgStateRepository implements StateRepository {
  constructor(private readonly db: PgDatabase) {}

  async get<T = unknown>(namespace: string, id: string): Promise<T | null> {
    const row = await this.db.get<{ value: string }>('SELECT value FROM state WHERE namespace = $1 AND id = $2', [namespace, id]);
    return row ? decodeStored<T>(row.value) : null;
  }

  async put(namespace: string, id: string, value: unknown): Promise<void> {
    await this.db.run('INSERT INTO state (namespace, id, value) VALUES ($1, $2, $3) ON CONFLICT (namespace, id) DO UPDATE SET value = excluded.value',
      [namespace, id, encodeStored(value ?? null)]);
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    return await this.db.run('DELETE FROM state WHERE namespace = $1 AND id = $2', [namespace, id]) > 0;
  }

  async list<T = unknown>(namespace: string): Promise<{ id: string; value: T }[]> {
    return (await this.db.all<{ id: string; value: string }>('SELECT id, value FROM state WHERE namespace = $1 ORDER BY id', [namespace]))
      .map((row) => ({ id: row.id, value: decodeStored<T>(row.value) }));
  }

  /** A literal prefix comparison on the primary key's range: LIKE would read `_` and `%` in the prefix as wildcards. */
  async clearPrefix(prefix: string): Promise<void> {
    await this.db.run('DELETE FROM state WHERE namespace >= $1 AND left(namespace, length($1)) = $1', [prefix]);
  }
}
