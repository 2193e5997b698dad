import { decodeStored, describeError, LogThrottle, ulidFloor, withinTime, type ChannelEvent, type Clock, type EventLog, type Logger, type PluginEventSubscriber, type StateRepository } from '@parley/core';
import { withBoundedRetry } from '@parley/host';
import type { EventBus } from './event-bus.js';

/** Where the cursors of the event subscribers are kept (`storage.state`), one document per subscriber. */
export const SUBSCRIBER_CURSORS = 'parley.subscribers';

/** What one {@link SubscriberFeed} works with. */
export interface SubscriberFeedOptions {
  subscriber: PluginEventSubscriber;
  /** The durable event log the feed catches up from. */
  log: EventLog;
  /** Where the cursor is kept ({@link SUBSCRIBER_CURSORS}). */
  state: StateRepository;
  /** Tells the feed of each handled event, in id order, once it is stored; the horizon bounds catching up. */
  bus: Pick<EventBus, 'watch' | 'horizon'>;
  clock: Clock;
  logger: Logger;
  /**
   * Live events only, no cursor (a cluster node: the shared log holds every node's events, which
   * their own nodes deliver): at most once, the events past {@link maxQueued} dropped and counted.
   */
  liveOnly?: boolean;
  /** Events held in memory for a subscriber behind the bus; past it the feed reads them from the log again. Default 10,000. */
  maxQueued?: number;
  /** Longest one `handle` call may take before it counts as failed (it is not interrupted). Default 30 s. */
  handleTimeoutMs?: number;
  /** Waits between the attempts of a failing `handle`. Default 100 ms, 500 ms, 2 s. */
  retryDelaysMs?: readonly number[];
}

/** Events read from the log at a time while catching up. */
const PAGE = 100;
/** The cursor is saved after this many live events, and whenever the feed is idle. */
const SAVE_EVERY = 100;
/** Wait before reading the log again after it failed. */
const READ_RETRY_MS = 1000;

/**
 * Hands every event the bus handles to one in-process subscriber, at least once and in id order, off
 * the bus: the bus only appends to the feed's bounded queue, so a slow or failing subscriber never
 * holds up the bus, sends, or the other subscribers. The feed keeps a cursor (the last event handed
 * over) in storage: on start, and whenever the queue overflowed, it reads the event log after the
 * cursor — up to the bus's horizon, past which events still come live — then follows the live events
 * again. An event may come twice after a crash (between a `handle` and the cursor's next save).
 */
export class SubscriberFeed {
  private cursor = '';
  private saved = '';
  private unsaved = 0;
  private catchingUp: boolean;
  private queue: ChannelEvent[] = [];
  private stopped = false;
  private wake?: () => void;
  private unwatch?: () => void;
  private running?: Promise<void>;
  private readonly dropped = new LogThrottle(60_000);
  private readonly options: Required<Omit<SubscriberFeedOptions, 'liveOnly'>> & { liveOnly: boolean };

  constructor(options: SubscriberFeedOptions) {
    this.options = { maxQueued: 10_000, handleTimeoutMs: 30_000, retryDelaysMs: [100, 500, 2000], liveOnly: false, ...options };
    this.catchingUp = !this.options.liveOnly;
  }

  /** The subscriber's name. */
  get name(): string {
    return this.options.subscriber.name;
  }

  /**
   * Reads the cursor (a subscriber seen for the first time starts at the present: it is not handed
   * the history already logged), follows the bus and starts handing events over.
   */
  async start(): Promise<void> {
    const { state, clock, liveOnly } = this.options;
    if (!liveOnly) {
      const stored = await state.get<{ cursor: string }>(SUBSCRIBER_CURSORS, this.name);
      this.cursor = stored?.cursor ?? ulidFloor(clock.now());
      if (!stored) await this.save();
      this.saved = this.cursor;
    }
    this.unwatch = this.options.bus.watch((event) => this.push(event));
    this.running = this.loop();
  }

  /** Stops following the bus, lets the event being handed over finish (up to `waitMs`) and saves the cursor. */
  async stop(waitMs = 5000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unwatch?.();
    this.wake?.();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise((resolve) => { timer = setTimeout(resolve, waitMs); })]);
    clearTimeout(timer);
    if (!this.options.liveOnly) await this.save().catch((err: unknown) => this.options.logger.warn({ err, subscriber: this.name }, 'event subscriber cursor not saved'));
  }

  private push(event: ChannelEvent): void {
    if (this.queue.length >= this.options.maxQueued) {
      // Behind by more than the bound: forget the queue; the events are read from the log again.
      this.queue = [];
      if (this.options.liveOnly) {
        this.dropped.note((count) => this.options.logger.warn({ subscriber: this.name, overflows: count }, 'event subscriber too slow: queued events dropped'));
        return;
      }
      this.catchingUp = true;
    } else this.queue.push(event);
    this.wake?.();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      if (this.catchingUp) {
        await this.catchUp();
        continue;
      }
      const event = this.queue.shift();
      if (event) {
        if (event.id <= this.cursor) continue;
        await this.deliver(event);
        if (++this.unsaved >= SAVE_EVERY) await this.saveQuietly();
        continue;
      }
      await this.saveQuietly();
      if (this.queue.length || this.catchingUp || this.stopped) continue;
      await new Promise<void>((resolve) => { this.wake = resolve; });
      this.wake = undefined;
    }
  }

  /** Hands over one page of logged events after the cursor and below the horizon; back to live events when there is none. */
  private async catchUp(): Promise<void> {
    const horizon = this.options.bus.horizon();
    let page: ChannelEvent[];
    try {
      page = (await this.options.log.read({ after: this.cursor, limit: PAGE }))
        .filter((entry) => entry.id < horizon)
        .map((entry) => decodeStored<ChannelEvent>(entry.event));
    } catch (err) {
      this.options.logger.warn({ error: describeError(err), subscriber: this.name }, 'event subscriber could not read the event log; trying again');
      await new Promise((resolve) => setTimeout(resolve, READ_RETRY_MS));
      return;
    }
    if (!page.length) {
      this.catchingUp = false;
      return;
    }
    for (const event of page) {
      if (this.stopped) return;
      await this.deliver(event);
    }
    await this.saveQuietly();
  }

  private async deliver(event: ChannelEvent): Promise<void> {
    const { subscriber, handleTimeoutMs, logger } = this.options;
    const delays = this.stopped ? [] : this.options.retryDelaysMs;
    const failed = await withBoundedRetry(() => withinTime(Promise.resolve().then(() => subscriber.handle(event)), handleTimeoutMs, `handle took longer than ${handleTimeoutMs} ms`), delays);
    if (failed) {
      logger.error({ error: describeError(failed.err), subscriber: this.name, event: event.id, type: event.type, instance: event.instance },
        'event subscriber failed after retries; event skipped');
    }
    this.cursor = event.id;
  }

  private async save(): Promise<void> {
    if (this.cursor === this.saved && this.saved) return;
    await this.options.state.put(SUBSCRIBER_CURSORS, this.name, { cursor: this.cursor });
    this.saved = this.cursor;
    this.unsaved = 0;
  }

  private async saveQuietly(): Promise<void> {
    if (this.options.liveOnly) return;
    await this.save().catch((err: unknown) => this.options.logger.warn({ error: describeError(err), subscriber: this.name }, 'event subscriber cursor not saved'));
  }
}
