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
 * fails within `commandTimeoutMs`, so nothing piles up unbounded). A write that fails tells `failed`
 * synchronously (the event bus then handles again the events whose writes may be gone, as after a
 * discarded group commit), and every {@link settled} call made while it was in flight rejects.
 */
export class WriteBehind {
  private readonly inFlight = new Set<Promise<void>>();

  /** @param failed - told, before any {@link settled} waiting for it rejects, whenever a write fails. */
  constructor(private readonly failed: () => void) {}

  /** Starts `write`; its outcome is seen through {@link settled}. */
  start(write: () => Promise<unknown>): void {
    const done = write().then(() => undefined, (err: unknown) => {
      this.failed();
      throw err;
    });
    this.inFlight.add(done);
    const forget = () => {
      this.inFlight.delete(done);
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
