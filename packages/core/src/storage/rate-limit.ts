/** Options of a storage-backed rate limiter: `points` events per `durationSeconds`, then a block. */
export interface RateLimitOptions {
  /** Names this limiter's counters (under the storage's own key prefix), e.g. `auth-failures`. */
  name: string;
  /** Events allowed per window. */
  points: number;
  /** Length of the counting window, in seconds. */
  durationSeconds: number;
  /** How long a key that went over the limit stays blocked, in seconds. */
  blockSeconds: number;
}

/** Counts events per key (a client address); every server that shares the store shares the counts. */
export interface RateLimitCounter {
  /**
   * Counts one event for `key`. Answers 0 while the key is within its limit, otherwise the
   * milliseconds it stays blocked. Rejects when the store cannot be reached (the caller falls back
   * to a local count).
   */
  hit(key: string): Promise<number>;
}

/**
 * Maps a rate-limiter-flexible `consume()` promise to a {@link RateLimitCounter} answer: it resolves
 * within the limit and rejects with a `RateLimiterRes` (not an Error; it carries `msBeforeNext`) once
 * over it; store failures reject with an Error, which is passed on.
 */
export async function blockedMs(consume: Promise<unknown>): Promise<number> {
  try {
    await consume;
    return 0;
  } catch (outcome) {
    if (outcome instanceof Error || typeof (outcome as { msBeforeNext?: unknown })?.msBeforeNext !== 'number') throw outcome;
    return Math.max(1, (outcome as { msBeforeNext: number }).msBeforeNext);
  }
}
