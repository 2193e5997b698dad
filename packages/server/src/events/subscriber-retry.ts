import { isParleyError, type Clock } from '@parley/core';

/** Bounded retry of a subscriber that failed for another reason than an outage (a bug, bad data): 3 retries, 100 ms, 500 ms, 2 s apart. */
const FAILURE_DELAYS_MS = [100, 500, 2000];
/** The first pause while storage is unavailable; each next one doubles, up to {@link OutagePolicy.maxDelayMs}. */
const FIRST_OUTAGE_DELAY_MS = 100;

/** How the event bus waits out a storage outage (config `events`, docs/events.md). */
export interface OutagePolicy {
  /**
   * How long an instance's events are retried while storage answers "unavailable", from the first
   * such failure of the outage (default 15 minutes: longer than a database fail-over or a restart
   * of Redis or PostgreSQL, short enough that a store that is gone for good is reported in a log line
   * and a metric within the quarter hour instead of holding events in memory indefinitely).
   */
  maxWaitMs: number;
  /** Longest pause between two tries (default 5 s): a recovered store is used within that. */
  maxDelayMs: number;
}

export const DEFAULT_OUTAGE_POLICY: OutagePolicy = { maxWaitMs: 15 * 60_000, maxDelayMs: 5_000 };

/** Why a run of events was left unhandled by a subscriber. */
export type EventDropReason = 'failed' | 'outage' | 'shutdown' | 'backlog';

/**
 * True for the failure of a store that cannot be reached or cannot write now (a lost connection, a
 * command time-out, a full disk): every back end maps those onto `ServiceUnavailableError` (503
 * `service_unavailable`). A write refused because this node no longer owns the instance (503
 * `lease_lost`) is not one: waiting would not make it succeed.
 */
export function isStorageUnavailable(err: unknown): boolean {
  return isParleyError(err) && err.code === 'service_unavailable';
}

/**
 * True for a flush answered 502 `outcome_unknown` with reason `not_replicated` (Redis with Sentinel and
 * `waitReplicas`): the writes are on the master, only no replica confirmed them in time.
 */
export function isNotReplicated(err: unknown): boolean {
  return isParleyError(err) && err.code === 'outcome_unknown' && (err.details as { reason?: unknown } | undefined)?.reason === 'not_replicated';
}

/**
 * Retries subscribers' handling: a storage outage is waited out (capped exponential backoff, per
 * instance, bounded by {@link OutagePolicy.maxWaitMs} from the outage's first failure), any other
 * failure gets the short bounded retry. Once {@link stop}'s grace is over, an instance in an outage
 * is not tried again: the shutdown must end in its bound.
 */
export class SubscriberRetry {
  /** Per instance, when its current outage began (its first "unavailable" failure since a success). */
  private readonly outages = new Map<string, number>();
  private readonly sleepers = new Set<() => void>();
  /** Per instance, who waits to hear that its handling began failing for storage ({@link whenBlocked}). */
  private readonly watchers = new Map<string, Set<() => void>>();
  private stopped = false;
  private graceTimer?: NodeJS.Timeout;

  constructor(private readonly policy: OutagePolicy, private readonly clock: Clock) {}

  /** Whether the instance's handling is failing for storage now (its chain is held). */
  blocked(instance: string): boolean {
    return this.outages.has(instance);
  }

  /**
   * Calls `listener` once the instance's handling fails for storage (at once when it does already);
   * answers a function that removes the listener.
   */
  whenBlocked(instance: string, listener: () => void): () => void {
    if (this.outages.has(instance)) {
      listener();
      return () => undefined;
    }
    let set = this.watchers.get(instance);
    if (!set) this.watchers.set(instance, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (!set.size && this.watchers.get(instance) === set) this.watchers.delete(instance);
    };
  }

  /**
   * One subscriber's part of an event's handling: a failure other than an outage gets the short bounded
   * retry and is answered (`failed`) once those are over; a storage outage is thrown at once, for
   * {@link run} to wait out around the whole handling (whose other writes may have gone with it).
   */
  async attempt(work: () => Promise<void>): Promise<{ err: unknown; reason: 'failed' } | undefined> {
    for (let failures = 0; ; failures++) {
      try {
        await work();
        return undefined;
      } catch (err) {
        if (isStorageUnavailable(err)) throw err;
        const pause = FAILURE_DELAYS_MS[failures];
        if (pause === undefined) return { err, reason: 'failed' };
        await this.sleep(pause);
      }
    }
  }

  /** Runs `work` until it succeeds or its retries are over; answers why it was given up, or undefined. */
  async run(instance: string, work: () => Promise<void>): Promise<{ err: unknown; reason: EventDropReason } | undefined> {
    let failures = 0;
    let delay = FIRST_OUTAGE_DELAY_MS;
    for (;;) {
      if (this.stopped && this.outages.has(instance)) return { err: new Error('shutdown during a storage outage'), reason: 'shutdown' };
      try {
        // A try may hang until the store's command time-out: the grace's end does not wait for it.
        if ((await this.untilStopped(work())) === 'stopped') {
          return { err: new Error('shutdown during a storage outage: the last try was not waited for'), reason: 'shutdown' };
        }
        this.outages.delete(instance);
        return undefined;
      } catch (err) {
        let pause: number | undefined;
        if (isStorageUnavailable(err)) {
          const now = this.clock.now();
          const since = this.outages.get(instance) ?? now;
          if (!this.outages.has(instance)) this.began(instance, now);
          if (this.stopped) return { err, reason: 'shutdown' };
          const left = since + this.policy.maxWaitMs - now;
          if (left > 0) pause = Math.min(delay, left);
          delay = Math.min(delay * 2, this.policy.maxDelayMs);
          if (pause === undefined) return { err, reason: 'outage' };
        } else {
          pause = FAILURE_DELAYS_MS[failures++];
          if (pause === undefined) return { err, reason: 'failed' };
        }
        await this.sleep(pause);
      }
    }
  }

  /** The instance's writes were durable without {@link run} (a run handled once): an outage it was in is over. */
  recovered(instance: string): void {
    this.outages.delete(instance);
  }

  private began(instance: string, now: number): void {
    this.outages.set(instance, now);
    const listeners = this.watchers.get(instance);
    this.watchers.delete(instance);
    for (const listener of listeners ?? []) listener();
  }

  /**
   * Shutdown: outages are waited out for `graceMs` more, then every pause ends and an instance whose
   * storage still fails is given up at once (its events logged and counted as `shutdown`), a try in
   * flight not waited for.
   */
  stop(graceMs: number): void {
    if (this.graceTimer || this.stopped) return;
    this.graceTimer = setTimeout(() => {
      this.stopped = true;
      for (const wake of this.sleepers) wake();
    }, graceMs);
    this.graceTimer.unref();
  }

  /**
   * Settles as `attempt` does, or answers `stopped` if the shutdown's grace ends first (the attempt left
   * to settle unobserved: its writes are idempotent, its events given up). A try begun after the grace
   * is waited for: it is not one of an outage ({@link run} gives those up before trying).
   */
  private async untilStopped(attempt: Promise<void>): Promise<'done' | 'stopped'> {
    if (this.stopped) {
      await attempt;
      return 'done';
    }
    let wake!: () => void;
    const stopped = new Promise<'stopped'>((resolve) => (wake = () => resolve('stopped')));
    this.sleepers.add(wake);
    try {
      return await Promise.race([attempt.then(() => 'done' as const), stopped]);
    } finally {
      this.sleepers.delete(wake);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}
