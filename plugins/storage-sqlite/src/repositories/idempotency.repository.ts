import type { IdempotencyClaim, IdempotencyCompletion, IdempotencyRecord, IdempotencyStore } from '@parley/core';
import { idempotencyOf, type IdempotencyRow } from '@parley/storage-sql';
import type { SqliteDatabase } from '../sqlite-database.js';

/** How often (by the callers' clock) expired keys are deleted. */
const SWEEP_EVERY_MS = 60_000;

export class SqliteIdempotencyStore implements IdempotencyStore {
  private sweptAt = 0;

  constructor(private readonly db: SqliteDatabase) {}

  async begin(scope: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyRecord | null> {
    if (claim.now - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = claim.now;
      this.db.run('DELETE FROM idempotency_keys WHERE expires_at <= +?', [claim.now]);
    }
    return this.db.transaction(() => {
      const live = this.live(scope, key, claim.now);
      if (live) return live;
      this.db.run(
        `INSERT OR REPLACE INTO idempotency_keys (scope, key, state, fingerprint, owner, expires_at, answer)
         VALUES (?, ?, 'in_progress', ?, ?, ?, NULL)`,
        [scope, key, claim.fingerprint, claim.owner, claim.expiresAt],
      );
      return null;
    });
  }

  async complete(scope: string, key: string, done: IdempotencyCompletion): Promise<boolean> {
    return this.db.run(
      `UPDATE idempotency_keys SET state = 'done', answer = ?, expires_at = ?
       WHERE scope = +? AND key = +? AND owner = +? AND state = 'in_progress'`,
      [JSON.stringify(done.answer), done.expiresAt, scope, key, done.owner],
    ) > 0;
  }

  async release(scope: string, key: string, owner: string): Promise<void> {
    this.db.run(`DELETE FROM idempotency_keys WHERE scope = +? AND key = +? AND owner = +? AND state = 'in_progress'`, [scope, key, owner]);
  }

  async get(scope: string, key: string, now: number): Promise<IdempotencyRecord | null> {
    return this.live(scope, key, now);
  }

  private live(scope: string, key: string, now: number): IdempotencyRecord | null {
    const row = this.db.get<IdempotencyRow>('SELECT state, fingerprint, owner, expires_at, answer FROM idempotency_keys WHERE scope = +? AND key = +?', [scope, key]);
    return idempotencyOf(row, now);
  }
}
