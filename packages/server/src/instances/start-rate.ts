import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '@parley/core';

/** The window a rate counts in. */
const WINDOW_MS = 1000;

/**
 * At most `perSecond` starts in any rolling second of the injected clock, granted in the order asked.
 * The times of the last `perSecond` starts are kept: a start is granted when fewer were made, or when
 * the oldest of them is a full second old. A waiting start sleeps on a real timer at most `recheckMs`
 * at a time and reads the clock again when it wakes, so a clock that jumps (a fake one in tests, an NTP
 * step) is followed, and the bound holds in the clock's time whatever the timers' delays.
 */
export class StartRate {
  /** Clock times of the most recent starts: a ring of `perSecond` slots, `next` the oldest once full. */
  private readonly recent: number[] = [];
  private next = 0;
  /** The start asked last: the next one waits for it, so starts are granted in order. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly perSecond: number, private readonly clock: Clock, private readonly recheckMs: number) {}

  /**
   * Resolves when a start may be made, with the clock time it is counted at; rejects when `signal`
   * aborts first.
   */
  take(signal?: AbortSignal): Promise<number> {
    const turn = this.tail.then(() => this.wait(signal));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async wait(signal: AbortSignal | undefined): Promise<number> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.clock.now();
      const oldest = this.recent.length < this.perSecond ? undefined : this.recent[this.next]!;
      if (oldest === undefined || now - oldest >= WINDOW_MS) {
        this.recent[this.next] = now;
        this.next = (this.next + 1) % this.perSecond;
        return now;
      }
      await sleep(Math.max(1, Math.min(oldest + WINDOW_MS - now, this.recheckMs)), undefined, signal ? { signal } : {});
    }
  }
}
