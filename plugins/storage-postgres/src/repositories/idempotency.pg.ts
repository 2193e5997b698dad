import type { IdempotencyClaim, IdempotencyCompletion, IdempotencyRecord, IdempotencyStore } from '@parley/core';
import { idempotencyOf, type IdempotencyRow } from '@parley/storage-sql';
import type { PgDatabase } from '../pg-database.js';

/** How often (by the callers' clock) expired keys are deleted. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Rounds of {@link PgIdempotencyStore.begin}: a round ends without an answer only when the live record it
 * found expired or was released between its two statements, so a second round almost always settles it.
 */
const BEGIN_ROUNDS = 5;

/** Idempotency keys; expired ones are swept at most once a minute, on an index by expiry. */
export class PgIdempotencyStore implements IdempotencyStore {
  private sweptAt = 0;

  constructor(private readonly db: PgDatabase) {}

  /**
   * The upsert takes the key when no live record holds it (ON CONFLICT serializes concurrent calls on the
   * row, so exactly one takes it); otherwise the live record is read and answered.
   */
  async begin(scope: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyRecord | null> {
    if (claim.now - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = claim.now;
      await this.db.run('DELETE FROM idempotency_keys WHERE expires_at <= $1', [claim.now]);
    }
    for (let round = 0; round < BEGIN_ROUNDS; round++) {
      const taken = await this.db.run(
        `INSERT INTO idempotency_keys (scope, key, state, fingerprint, owner, expires_at, answer) VALUES ($1, $2, 'in_progress', $3, $4, $5, NULL)
         ON CONFLICT (scope, key) DO UPDATE SET state = 'in_progress', fingerprint = excluded.fingerprint, owner = excluded.owner,
           expires_at = excluded.expires_at, answer = NULL
         WHERE idempotency_keys.expires_at <= $6`,
        [scope, key, claim.fingerprint, claim.owner, claim.expiresAt, claim.now],
      );
      if (taken > 0) return null;
      const live = await this.get(scope, key, claim.now);
      if (live) return live;
    }
    throw new Error(`idempotency key ${scope}/${key} changed hands ${BEGIN_ROUNDS} times in a row`);
  }

  async complete(scope: string, key: string, done: IdempotencyCompletion): Promise<boolean> {
    return await this.db.run(
      `UPDATE idempotency_keys SET state = 'done', answer = $1, expires_at = $2
       WHERE scope = $3 AND key = $4 AND owner = $5 AND state = 'in_progress'`,
      [JSON.stringify(done.answer), done.expiresAt, scope, key, done.owner],
    ) > 0;
  }

  async release(scope: string, key: string, owner: string): Promise<void> {
    await this.db.run(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND owner = $3 AND state = 'in_progress'`, [scope, key, owner]);
  }

  async get(scope: string, key: string, now: number): Promise<IdempotencyRecord | null> {
    const row = await this.db.get<IdempotencyRow>('SELECT state, fingerprint, owner, expires_at, answer FROM idempotency_keys WHERE scope = $1 AND key = $2', [scope, key]);
    return idempotencyOf(row, now);
  }
}
