import type { Clock } from '@parley/core';

/** A {@link Clock} that moves only when a test moves it. */
export interface FakeClock extends Clock {
  /** Sets the time (Unix ms). */
  set(ms: number): void;
  /** Moves the time forward by `ms` (negative values are refused: time does not run backwards). */
  advance(ms: number): void;
}

/** A fake clock starting at `startMs` (Unix ms; default 2026-01-01T00:00:00Z). */
export function createFakeClock(startMs = Date.UTC(2026, 0, 1)): FakeClock {
  let now = startMs;
  return {
    now: () => now,
    set(ms) {
      now = ms;
    },
    advance(ms) {
      if (ms < 0) throw new RangeError(`a fake clock does not run backwards (advance ${ms})`);
      now += ms;
    },
  };
}
