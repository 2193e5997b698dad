import { authStatePosition, scanPage, type AuthStateEntry, type AuthStateRepository, type ScanPage, type ScanRequest } from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';

export class SqliteAuthStateRepository implements AuthStateRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async get(instance: string, category: string, ids: string[]): Promise<Record<string, string>> {
    if (ids.length === 0) return {};
    const rows = this.db.all<{ id: string; value: string }>(
      'SELECT id, value FROM auth_state WHERE instance = +? AND category = +? AND id IN (SELECT value FROM json_each(?))',
      [instance, category, JSON.stringify(ids)],
    );
    return Object.fromEntries(rows.map((row) => [row.id, row.value]));
  }

  async set(instance: string, entries: { category: string; id: string; value: string | null }[]): Promise<void> {
    if (entries.length === 0) return;
    this.db.transaction(() => {
      for (const { category, id, value } of entries) {
        if (value === null) this.db.run('DELETE FROM auth_state WHERE instance = +? AND category = +? AND id = +?', [instance, category, id]);
        else this.db.run('INSERT OR REPLACE INTO auth_state (instance, category, id, value) VALUES (?, ?, ?, ?)', [instance, category, id, value]);
      }
    });
    // A signal session must never be ahead of what is on disk: keys are durable before the channel goes on.
    await this.db.flush();
  }

  async clear(instance: string): Promise<void> {
    this.db.run('DELETE FROM auth_state WHERE instance = +?', [instance]);
  }

  /** A range of the primary key (instance, category, id). */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<AuthStateEntry>> {
    const [category, id] = authStatePosition.parse(request.after) ?? ['', ''];
    const items = this.db.all<{ category: string; id: string; value: string }>(
      'SELECT category, id, value FROM auth_state WHERE instance = +? AND (category, id) > (+?, +?) ORDER BY category, id LIMIT ?',
      [instance, category, id, request.limit],
    );
    return scanPage(items.map((row) => ({ ...row })), request.limit, authStatePosition.of);
  }
}
