import { encodeStored, type ChannelEvent, type Clock, type EventLog, type LoggedEvent, type Logger } from '@parley/core';
import { SUBSCRIBER_RETRY_DELAYS_MS, withBoundedRetry } from './event-bus.js';

/** How often expired entries are purged from the event log. */
export const EVENT_PURGE_INTERVAL_MS = 5 * 60_000;

/**
 * The event bus subscriber that writes every handled event to the durable event log (the storage's
 * `events`), and purges the log by its retention. Appends are group-committed like the webhook
 * engine's enqueues: events handed over in the same tick go to storage in one `append` call, written
 * one microtask after the first. `handle` does not wait for the write: the instance's next event
 * goes on at once, and the bus tells stream clients of an event only after {@link written} (and the
 * storage's flush), so an event a client saw live is in the log.
 */
export class EventJournal {
  readonly name = 'event-log';
  private batch: LoggedEvent[] = [];
  private flushing: Promise<void> | null = null;
  /** The appends under way, in order: {@link written} waits for the last. */
  private tail: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: EventLog, private readonly clock: Clock, private readonly retentionMs: number, private readonly logger: Logger,
    private readonly retryDelaysMs: readonly number[] = SUBSCRIBER_RETRY_DELAYS_MS,
  ) {}

  /** {@link EventSubscriber}: hands the event to the next append and resolves at once. */
  handle(event: ChannelEvent): Promise<void> {
    this.batch.push({ id: event.id, instance: event.instance, type: event.type, at: event.receivedAt, event: encodeStored(event) });
    this.flushing ??= Promise.resolve().then(() => {
      const batch = this.batch;
      this.batch = [];
      this.flushing = null;
      // Appends are chained: a retried batch never lands after a later one.
      this.tail = this.tail.then(() => this.append(batch));
    });
    return Promise.resolve();
  }

  /** {@link EventSubscriber.handleBatch}: a run of events goes to the log in one `append`, in order. */
  handleBatch(events: readonly ChannelEvent[]): Promise<void> {
    for (const event of events) void this.handle(event);
    return Promise.resolve();
  }

  /**
   * Resolves when every event handed over so far has been appended (readable; durable after the
   * storage's flush), or given up after the bounded retries (logged). Never rejects.
   */
  async written(): Promise<void> {
    await this.flushing;
    await this.tail;
  }

  /** One batch, with the bus's bounded retry (3 attempts after the first, 100 ms, 500 ms, 2 s apart). */
  private async append(batch: LoggedEvent[]): Promise<void> {
    const failed = await withBoundedRetry(() => this.log.append(batch), this.retryDelaysMs);
    if (failed) this.logger.error({ err: failed.err, events: batch.length, first: batch[0]?.id }, 'event-log append failed after retries; those events cannot be replayed');
  }


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
