import { encodeStored, type ChannelEvent, type Clock, type EventLog, type LoggedEvent, type Logger } from '@parley/core';

/** How often expired entries are purged from the event log. */
export const EVENT_PURGE_INTERVAL_MS = 5 * 60_000;

/**
 * The event bus subscriber that writes every handled event to the durable event log (the storage's
 * `events`), and purges the log by its retention. Appends are group-committed like the webhook
 * engine's enqueues: events handed over in the same tick go to storage in one `append` call, written
 * one microtask after the first, so a lone event waits for nothing and a burst costs one write.
 */
export class EventJournal {
  readonly name = 'event-log';
  private batch: LoggedEvent[] = [];
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly log: EventLog, private readonly clock: Clock, private readonly retentionMs: number, private readonly logger: Logger) {}

  /** {@link EventSubscriber}: resolves once the event is durably in the log. */
  handle(event: ChannelEvent): Promise<void> {
    this.batch.push({ id: event.id, instance: event.instance, type: event.type, at: event.receivedAt, event: encodeStored(event) });
    this.flushing ??= Promise.resolve().then(() => {
      const batch = this.batch;
      this.batch = [];
      this.flushing = null;
      return this.log.append(batch);
    });
    return this.flushing;
  }

  /** Deletes entries older than the retention; answers how many. */
  async purge(): Promise<number> {
    const count = await this.log.purge(this.clock.now() - this.retentionMs);
    if (count > 0) this.logger.debug({ count }, 'expired event-log entries purged');
    return count;
  }

  /** Purges now and every {@link EVENT_PURGE_INTERVAL_MS}. Idempotent. */
  start(): void {
    if (this.timer) return;
    const run = (): void => void this.purge().catch((err: unknown) => this.logger.warn({ err }, 'event-log purge failed; retried at the next interval'));
    run();
    this.timer = setInterval(run, EVENT_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
