import { FencedOffError, type Fence } from '@parley/core';
import type { Queryable } from '../queryable.js';

/** What `cluster_fence_check` raises when the token is no longer the instance's (migration 4). */
const REFUSED = { code: 'P0001', message: 'parley: fenced off' };

function isRefusal(err: unknown): boolean {
  return err instanceof Error && (err as { code?: unknown }).code === REFUSED.code && err.message === REFUSED.message;
}

/**
 * Runs `statements` (INSERT, UPDATE or DELETE statements, each without a WITH or a RETURNING of its
 * own, sharing `params`) as one statement, and answers how many rows the last one changed. With a
 * fence the same statement first calls `cluster_fence_check`, which takes `FOR SHARE` on the
 * instance's lease row at the fence's token and raises when there is none: the statement then fails
 * as a whole (FencedOffError, nothing written). One statement, not a transaction of several round
 * trips: the lock ends with it, so a writer cut off from the database mid-way never keeps a new
 * owner's take (an UPDATE of that row) waiting, and a take-over that comes first makes the write fail.
 */
export async function writeStatements(db: Queryable, fence: Fence | undefined, statements: string[], params: unknown[]): Promise<number> {
  const writes = statements.map((sql, i) => `w${i} AS (${sql} RETURNING 1)`);
  const changed = `(SELECT count(*) FROM w${statements.length - 1}) AS changed`;
  if (!fence) return (await db.get<{ changed: number }>(`WITH ${writes.join(', ')} SELECT ${changed}`, params))!.changed;
  const check = `fence AS (SELECT cluster_fence_check($${params.length + 1}, $${params.length + 2}) AS current)`;
  try {
    const row = await db.get<{ changed: number }>(
      `WITH ${[check, ...writes].join(', ')} SELECT (SELECT current FROM fence) AS current, ${changed}`, [...params, fence.instance, fence.token]);
    return row!.changed;
  } catch (err) {
    if (isRefusal(err)) throw new FencedOffError(fence.instance);
    throw err;
  }
}
