import { decodeStored, encodeStored, scanPage, type Fence, type ScanPage, type ScanRequest, type StateRepository } from '@parley/core';
import { writeStatements } from '../cluster/fenced.js';
import type { PgDatabase } from '../pg-database.js';

/**
 * The namespaces starting with $1, as a walk of the primary key: from the first namespace at or after
 * the prefix, each step the next namespace (LIMIT 1), until one does not start with it. In the "C" collation the
 * namespaces of a prefix are one run of the key's order, starting at the prefix. The prefix is compared literally
 * (`left`): LIKE would read `_` and `%` in it as wildcards.
 */
const PREFIX_WALK = `WITH RECURSIVE ns (namespace) AS (
    (SELECT namespace FROM state WHERE namespace >= $1 ORDER BY namespace LIMIT 1)
    UNION ALL
    SELECT (SELECT s.namespace FROM state AS s WHERE s.namespace > ns.namespace ORDER BY s.namespace LIMIT 1)
    FROM ns WHERE left(ns.namespace, length($1)) = $1
  ) SELECT namespace FROM ns WHERE left(namespace, length($1)) = $1`;

/**
 * The namespaces of prefix $1: one probe per namespace. As `namespace >= $1 AND left(…) = $1`, the range had
 * no end, and a plan made on a young table read every entry after the prefix.
 */
export const NAMESPACES = `${PREFIX_WALK} ORDER BY namespace`;

/** The entries of every namespace of prefix $1: a range of the primary key that ends at its last namespace ({@link PREFIX_WALK}). */
export const CLEAR_PREFIX = `DELETE FROM state WHERE namespace >= $1 AND namespace <= (SELECT max(p.namespace) FROM (${PREFIX_WALK}) AS p)
  AND left(namespace, length($1)) = $1`;

/** Plugins' small documents by namespace and id; a write with a fence applies only while its token is current (writeStatements). */
export class PgStateRepository implements StateRepository {
  constructor(private readonly db: PgDatabase) {}

  async get<T = unknown>(namespace: string, id: string): Promise<T | null> {
    const row = await this.db.reads.get<{ value: string }>('SELECT value FROM state WHERE namespace = $1 AND id = $2', [namespace, id]);
    return row ? decodeStored<T>(row.value) : null;
  }

  /** Without a fence, one write of the turn's statement ({@link PgDatabase.upserts}). */
  async put(namespace: string, id: string, value: unknown, fence?: Fence): Promise<void> {
    if (!fence) {
      await this.db.upserts.state({ namespace, id, value: encodeStored(value ?? null) });
      return;
    }
    await writeStatements(this.db, fence, ['INSERT INTO state (namespace, id, value) VALUES ($1, $2, $3) ON CONFLICT (namespace, id) DO UPDATE SET value = excluded.value'],
      [namespace, id, encodeStored(value ?? null)]);
  }

  /** Without a fence, one write of the turn's statement ({@link PgDatabase.upserts}). */
  async delete(namespace: string, id: string, fence?: Fence): Promise<boolean> {
    if (!fence) return this.db.upserts.state({ namespace, id });
    return await writeStatements(this.db, fence, ['DELETE FROM state WHERE namespace = $1 AND id = $2'], [namespace, id]) > 0;
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

  /** The namespaces of the prefix, one probe of the primary key each ({@link NAMESPACES}). */
  async listNamespaces(prefix: string): Promise<string[]> {
    return (await this.db.reads.all<{ namespace: string }>(NAMESPACES, [prefix])).map((row) => row.namespace);
  }

  /** A range of the primary key, from the prefix to its last namespace ({@link CLEAR_PREFIX}). */
  async clearPrefix(prefix: string, fence?: Fence): Promise<void> {
    await writeStatements(fence ? this.db : this.db.writes, fence, [CLEAR_PREFIX], [prefix]);
  }
}
