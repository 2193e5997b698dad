import type { RetryOptions } from './webhook-options.js';

/**
 * Reads a `Retry-After` header: delay-seconds or an HTTP date. Answers the wait in ms (never negative),
 * or undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** When to try a failed delivery again. */
export class RetryPolicy {
  /** @param random - source of jitter in [0, 1), injectable for tests. */
  constructor(private readonly options: RetryOptions, private readonly random: () => number = Math.random) {}

  /** Attempts a delivery gets before it is dead-lettered. */
  get maxAttempts(): number {
    return this.options.schedule.length + 1;
  }

  /**
   * The next attempt time after attempt number `attempt` (1-based) failed at `now`, or null when the
   * schedule is exhausted. A receiver's `Retry-After` (capped) postpones the retry, never advances it.
   */
  nextAttemptAt(attempt: number, now: number, retryAfterMs?: number): number | null {
    const base = this.options.schedule[attempt - 1];
    if (base === undefined) return null;
    const delay = base - this.random() * base * this.options.jitter;
    const asked = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, this.options.maxRetryAfterMs);
    return now + Math.round(Math.max(delay, asked));
  }
}
