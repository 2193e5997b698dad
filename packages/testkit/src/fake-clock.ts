import type { Clock } from '@parley/core';

/**
 * A {@link Clock} that moves only when told: give it to `ParleyServer.create({ clock })`, a storage
 * or the webhook engine, and every timestamp they make (records, events, deliveries, retries,
 * leases) follows it. Timers still run in real time; code that waits for a due time re-reads the
 * clock when it wakes, so advancing the clock is how a test makes something due.
 */
export class FakeClock implements Clock {
  /** 2030-01-01T00:00:00Z: far from the real time, so a stamp from the real clock stands out. */
  static readonly START = Date.UTC(2030, 0, 1);
  private current: number;

  constructor(start: number = FakeClock.START) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  /** Moves time forward by `ms` (never backwards) and answers the new time. */
  advance(ms: number): number {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be >= 0, got ${ms}`);
    this.current += ms;
    return this.current;
  }

  /** Sets the time to `ms` (Unix milliseconds). */
  set(ms: number): void {
    this.current = ms;
  }
}
