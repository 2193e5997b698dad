import type { Clock, EventLog, Logger } from '@parley/core';

/** How often expired entries are purged from the event log. */
const EVENT_PURGE_INTERVAL_MS = 5 * 60_000;

/**
 * Keeps the durable event log (the storage's `events`) to its retention. The entries themselves are
 * written by the webhook engine (`logEvents`), in the same atomic write as each event's deliveries.
 */
export class EventLogRetention {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly log: EventLog, private readonly clock: Clock, private readonly retentionMs: number, private readonly logger: Logger) {}

  /** Deletes entries older than the retention; answers how many. */
  async purge(): Promise<number> {
    const count = await this.log.purge(this.clock.now() - this.retentionMs);
    if (count > 0) this.logger.debug({ count }, 'expired event-log entries purged');
    return count;
  }

  /**
   * Purges now, then every {@link EVENT_PURGE_INTERVAL_MS}; resolves after the first purge (a failure
   * is logged and retried at the next interval). Idempotent.
   */
  async start(): Promise<void> {
    if (this.timer) return;
    const run = (): Promise<void> => this.purge().then(() => undefined, (err: unknown) => this.logger.warn({ err }, 'event-log purge failed; retried at the next interval'));
    this.timer = setInterval(() => void run(), EVENT_PURGE_INTERVAL_MS);
    this.timer.unref();
    await run();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
