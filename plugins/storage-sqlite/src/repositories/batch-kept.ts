import type { SqliteDatabase } from '../sqlite-database.js';

/**
 * Rows a repository read or wrote under the open batch's write lock, by key, kept until the batch ends
 * ({@link SqliteDatabase.lockedEpoch}): nobody else writes them meanwhile, so reading one again in the
 * same batch can be answered from here (issue 26: the store projector reads a chat or a message and
 * then writes it, or reads it again, within one batch). Between batches nothing is kept or answered.
 * Whoever writes a kept row through another statement must update it here or drop it.
 */
export class BatchKept<V> {
  private readonly rows = new Map<string, V>();
  private epoch: number | undefined;

  constructor(private readonly db: SqliteDatabase) {}

  /** The row kept for `key` in the open batch (null: kept as absent), or undefined when none is. */
  get(key: string): V | undefined {
    const epoch = this.db.lockedEpoch();
    return epoch !== undefined && epoch === this.epoch ? this.rows.get(key) : undefined;
  }

  /** Keeps `row` as the open batch holds it; nothing between batches. A new batch starts afresh. */
  set(key: string, row: V): void {
    const epoch = this.db.lockedEpoch();
    if (epoch === undefined) return;
    if (epoch !== this.epoch) {
      this.rows.clear();
      this.epoch = epoch;
    }
    this.rows.set(key, row);
  }

  delete(key: string): void {
    this.rows.delete(key);
  }

  clear(): void {
    this.rows.clear();
  }
}
