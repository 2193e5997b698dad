import type { StateRepository } from '@parley/core';

/**
 * Remembers the keys of handled webhook events for at least `windowMs`, in the storage back end so
 * redeliveries are dropped across restarts and across server processes sharing one store.
 *
 * Keys live in time buckets of `windowMs` (namespace `<base>:<bucket>`). A key is a duplicate when
 * the current or the previous bucket holds it, so it is remembered between one and two windows;
 * older buckets are deleted with one `clearPrefix` each, and an index document lists the buckets
 * that exist so none is left behind after downtime.
 */
export class DedupWindow {
  /** Keys being handled by this process right now (two deliveries racing the storage round trip). */
  private readonly inFlight = new Set<string>();
  private prunedBucket = -1;

  constructor(
    private readonly state: StateRepository,
    private readonly base: string,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /**
   * Starts handling `key`: answers false for a redelivery (seen within the window, or being handled
   * right now), true otherwise. Follow with {@link DedupWindow.commit} once the event is emitted, or
   * {@link DedupWindow.abort}. Recording after emitting means a crash in between yields a duplicate
   * on Meta's retry rather than a lost event.
   */
  async begin(key: string): Promise<boolean> {
    if (this.inFlight.has(key)) return false;
    this.inFlight.add(key);
    try {
      const bucket = Math.floor(this.now() / this.windowMs);
      await this.prune(bucket);
      const [current, previous] = await Promise.all([
        this.state.get(this.namespace(bucket), key),
        this.state.get(this.namespace(bucket - 1), key),
      ]);
      if (current === null && previous === null) return true;
    } catch (err) {
      this.inFlight.delete(key);
      throw err;
    }
    this.inFlight.delete(key);
    return false;
  }

  /** Records a handled key. */
  async commit(key: string): Promise<void> {
    try {
      const now = this.now();
      await this.state.put(this.namespace(Math.floor(now / this.windowMs)), key, now);
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Gives up a key whose event was not emitted, so Meta's retry goes through. */
  abort(key: string): void {
    this.inFlight.delete(key);
  }

  private async prune(bucket: number): Promise<void> {
    if (bucket === this.prunedBucket) return;
    const index = (await this.state.get<number[]>(this.base, 'buckets')) ?? [];
    const keep = index.filter((b) => b >= bucket - 1);
    for (const old of index.filter((b) => b < bucket - 1)) await this.state.clearPrefix(this.namespace(old));
    if (!keep.includes(bucket)) keep.push(bucket);
    await this.state.put(this.base, 'buckets', keep.sort((a, b) => a - b));
    this.prunedBucket = bucket;
  }

  /** Fixed-width bucket numbers, so one bucket's namespace is never a prefix of another's. */
  private namespace(bucket: number): string {
    return `${this.base}:${String(bucket).padStart(12, '0')}`;
  }
}
