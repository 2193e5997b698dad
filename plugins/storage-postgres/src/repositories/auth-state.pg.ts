import { authStatePosition, scanPage, type AuthStateEntry, type AuthStateRepository, type Fence, type ScanPage, type ScanRequest } from '@parley/core';
import { writeStatements } from '../cluster/fenced.js';
import type { PgDatabase } from '../pg-database.js';

/**
 * The values of ids $3 of category $2 of instance $1, each read by its whole key (LATERAL … LIMIT 1): with
 * `id = ANY($3)`, a plan made on a young table probed the key's prefix and filtered the instance's every entry.
 */
export const AUTH_STATE_GET = `SELECT k.id, a.value FROM unnest($3::text[]) AS k (id)
  CROSS JOIN LATERAL (SELECT value FROM auth_state WHERE instance = $1 AND category = $2 AND id = k.id LIMIT 1) AS a`;

/**
 * Deletes entries ($2 categories, $3 ids) of instance $1, each found by its whole key (LATERAL … LIMIT 1),
 * then deleted by its row's address: joined to the unnested keys, a plan made on a young table hashed the
 * instance's every entry. A row another statement rewrote meanwhile is left as that statement wrote it (as if
 * the delete came first), which every write of auth state (an upsert or a delete of the key) allows.
 */
export const AUTH_STATE_DELETE = `DELETE FROM auth_state AS a USING unnest($2::text[], $3::text[]) AS d (category, id)
  CROSS JOIN LATERAL (SELECT ctid AS addr FROM auth_state WHERE instance = $1 AND category = d.category AND id = d.id LIMIT 1) AS k
  WHERE a.ctid = k.addr`;

/**
 * Channel auth state; a `set` is one statement, so its entries apply all or none and are committed when it resolves.
 * With a fence, a write applies only while the fence's token is current (writeStatements).
 */
export class PgAuthStateRepository implements AuthStateRepository {
  constructor(private readonly db: PgDatabase) {}

  async get(instance: string, category: string, ids: string[]): Promise<Record<string, string>> {
    if (ids.length === 0) return {};
    const rows = await this.db.reads.all<{ id: string; value: string }>(AUTH_STATE_GET, [instance, category, ids]);
    return Object.fromEntries(rows.map((row) => [row.id, row.value]));
  }

  async set(instance: string, entries: { category: string; id: string; value: string | null }[], fence?: Fence): Promise<void> {
    if (entries.length === 0) return;
    // The last entry of a key wins, as applying them in order would (one statement cannot touch a row twice).
    const last = new Map<string, { category: string; id: string; value: string | null }>();
    for (const entry of entries) last.set(`${entry.category}\n${entry.id}`, entry);
    const writes = [...last.values()].filter((entry) => entry.value !== null);
    const deletes = [...last.values()].filter((entry) => entry.value === null);
    await writeStatements(fence ? this.db : this.db.writes, fence, [
      AUTH_STATE_DELETE,
      `INSERT INTO auth_state (instance, category, id, value) SELECT $1, e.category, e.id, e.value FROM unnest($4::text[], $5::text[], $6::text[]) AS e (category, id, value)
       ON CONFLICT (instance, category, id) DO UPDATE SET value = excluded.value`,
    ], [instance, deletes.map((e) => e.category), deletes.map((e) => e.id), writes.map((e) => e.category), writes.map((e) => e.id), writes.map((e) => e.value)]);
  }

  async clear(instance: string, fence?: Fence): Promise<void> {
    await writeStatements(fence ? this.db : this.db.writes, fence, ['DELETE FROM auth_state WHERE instance = $1'], [instance]);
  }

  /** A range of the primary key (instance, category, id). */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<AuthStateEntry>> {
    const [category, id] = authStatePosition.parse(request.after) ?? ['', ''];
    const items = await this.db.reads.all<{ category: string; id: string; value: string }>(
      'SELECT category, id, value FROM auth_state WHERE instance = $1 AND (category, id) > ($2, $3) ORDER BY category, id LIMIT $4',
      [instance, category, id, request.limit],
    );
    return scanPage(items, request.limit, authStatePosition.of);
  }
}
