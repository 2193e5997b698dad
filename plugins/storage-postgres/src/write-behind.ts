/**
 * Writes whose callers go on without waiting for their answer: event-log appends, which are idempotent
 * (keyed by the event's id) and which nothing reads in the step that wrote them. The server appends an
 * event's log entry on the instance's event chain, which handles the instance's events one run after
 * another: an append awaited there holds every later event of the instance for a round trip (on
 * PostgreSQL, a round trip and a commit per run, in series). Started here, it runs on the pool beside the
 * chain, and {@link PgDatabase.flush} — which the server awaits before an event counts as handled —
 * waits for it.
 *
 * Each write starts at once on the pool (whose checkout and statement bounds apply: during an outage it
 * fails within `commandTimeoutMs`, so nothing piles up unbounded), unless it names a key (an entry's id)
 * that a write in flight names too: it then starts once that one is over, so that writes of the same key
 * land in the order they were made (on the pool's connections they could commit in either order). A write that fails tells `failed`
 * synchronously (the event bus then handles again the events whose writes may be gone, as after a
 * discarded group commit), and every {@link settled} call made while it was in flight rejects.
 */
export class WriteBehind {
  private readonly inFlight = new Set<Promise<void>>();
  /** The latest write in flight of each key. */
  private readonly byKey = new Map<string, Promise<void>>();

  /** @param failed - told, before any {@link settled} waiting for it rejects, whenever a write fails. */
  constructor(private readonly failed: () => void) {}

  /** The writes in flight that name any of `keys`. */
  private inFlightOf(keys: readonly string[]): Set<Promise<void>> {
    const found = new Set<Promise<void>>();
    for (const key of keys) {
      const write = this.byKey.get(key);
      if (write) found.add(write);
    }
    return found;
  }

  /** Resolves once the writes in flight that name any of `keys` are over, failed or not (a write of those keys made elsewhere waits for this). */
  async over(keys: readonly string[]): Promise<void> {
    const earlier = this.inFlightOf(keys);
    if (earlier.size > 0) await Promise.allSettled(earlier);
  }

  /** Starts `write` of `keys` (after the writes in flight of any of them); its outcome is seen through {@link settled}. */
  start(keys: readonly string[], write: () => Promise<unknown>): void {
    const earlier = this.inFlightOf(keys);
    const run = earlier.size > 0 ? Promise.allSettled(earlier).then(write) : write();
    const done = run.then(() => undefined, (err: unknown) => {
      this.failed();
      throw err;
    });
    this.inFlight.add(done);
    for (const key of keys) this.byKey.set(key, done);
    const forget = () => {
      this.inFlight.delete(done);
      for (const key of keys) if (this.byKey.get(key) === done) this.byKey.delete(key);
    };
    done.then(forget, forget);
  }

  /** Resolves once every write started before the call succeeded; rejects with the error of one that failed. */
  async settled(): Promise<void> {
    if (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Resolves once every write started before the call is over, failed or not (a read that must see them waits for this). */
  async idle(): Promise<void> {
    if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
