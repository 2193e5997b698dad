import { describeError, LogThrottle, ServiceUnavailableError, type ChannelEvent, type InstanceRecord, type Logger } from '@parley/core';
import { CLAIM_FAILURE_LOG_MS } from '@parley/host';
import type { InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import type { BusEvent, SentEvent, SentRecord } from './sent-records.js';
import { isNotReplicated, type EventDropReason, type SubscriberRetry } from './subscriber-retry.js';

/**
 * A consumer of channel events: the storage projector, the webhook engine of `@parley/webhooks`
 * (its `handle(event, instance)` fits as it is), anything else.
 */
export interface EventSubscriber {
  readonly name: string;
  /**
   * Handles one event of `instance` (the current record; `runtime` is the loaded instance with its
   * adapters). The bus awaits it before the next subscriber and the next event of the same instance.
   * The bus does not wait for the writes' commit before the next event; after a storage outage (a
   * failed write, or a failed commit, also one that came after the event was handled and the instance's
   * next events with it) the bus runs every subscriber on the event again, so its writes must be
   * idempotent and an effect outside storage must not be repeated.
   */
  handle(event: ChannelEvent, instance: InstanceRecord, runtime: InstanceRuntime): Promise<void>;
  /**
   * Optional: handles a run of consecutive events of one instance, each of a `BATCHED_TYPES` type
   * (messages and statuses mixed, in publish order), with the outcome of `handle` called on each in
   * order — a status that follows its message in the run applies after it — the run that queued up
   * while the instance's earlier events were processed, so a store can serve it in a few calls (round
   * trips) instead of a few per event. Without it (or for a run of one) the bus calls `handle` for each.
   */
  handleBatch?(events: readonly ChannelEvent[], instance: InstanceRecord, runtime: InstanceRuntime): Promise<void>;
  /**
   * Optional, the store's alone: stores the records of sends their channel took (the send path's
   * {@link SentEvent}s of a run, which no other subscriber sees), as idempotently as `handle`; called
   * after the run's channel events are handled.
   */
  handleSent?(sent: readonly SentRecord[], runtime: InstanceRuntime): Promise<void>;
}

/** Decides whether an event is processed at all (instance flags such as `receive_presence`). */
export type EventFilter = (event: ChannelEvent, runtime: InstanceRuntime) => boolean;

/** Told of events the bus gave up on (the `parley_events_dropped_total` metric). */
export interface EventBusObserver {
  /** `count` events of a run were left unhandled by a subscriber, or not queued at all (`backlog`). */
  eventsDropped(reason: EventDropReason, count: number): void;
}

/** What a run of events handled answers: the instance's record and the events handled. */
export interface Handled {
  record: InstanceRecord;
  events: Set<BusEvent>;
  /** The events whose writes may be missing: the run was given up, or a subscriber gave them up. */
  lost: Set<BusEvent>;
}

/** A run of events one subscriber gave up after its short retries. */
interface SubscriberDrop {
  err: unknown;
  reason: EventDropReason;
  subscriber: string;
  events: BusEvent[];
}

/**
 * A run of an instance's events the subscribers have handled once, its writes on their way to
 * durability. `outcome` never rejects: `durable` once the writes are, `again` when they may have been
 * discarded (a write or the commit failed for storage, or a commit failed while the run was handled or
 * waited: SQLite's group commit rolls back every write of its turn) and the run must be handled again.
 */
export interface HandledRun {
  readonly runtime: InstanceRuntime;
  /** The events the subscribers handled (the filter let them through). */
  readonly events: BusEvent[];
  drops: SubscriberDrop[];
  /** The count of discarded commits when the handling began. */
  readonly since: number;
  /** The handling failed for storage (a write, or a commit discarded before a subscriber went on). */
  failed: boolean;
  outcome: Promise<'durable' | 'again'>;
}

/** The failure a run is handled again for when a commit was discarded while it was handled or waited for its own. */
const DISCARDED = (): ServiceUnavailableError => new ServiceUnavailableError('a commit failed while the events were handled: their writes may be rolled back');

/** Runs the subscribers of the event bus on one run of an instance's events, and tells when their writes are durable. */
export class RunHandler {
  /** Flushes answered `not_replicated` come for every batch while a replica is missing: a line a minute, not one per batch. */
  private readonly unreplicated = new LogThrottle(CLAIM_FAILURE_LOG_MS);
  /** Commits discarded so far (told by the storage): a run that saw this change may have lost writes. */
  private discards = 0;

  constructor(private readonly deps: {
    registry: InstanceRegistry; subscribers: readonly EventSubscriber[]; filter: EventFilter; retry: SubscriberRetry; logger: Logger;
    durable: (() => Promise<void>) | undefined; observer: EventBusObserver | undefined; taps: ReadonlySet<(event: ChannelEvent) => void>;
  }) {}

  /** The storage discarded writes it had accepted (a failed group commit): every run handled or waiting since may have lost some. */
  discarded(): void {
    this.discards++;
  }

  /** Whether the run, handled once, may have lost writes: it failed, or a commit was discarded since it began. */
  mayBeDiscarded(run: HandledRun): boolean {
    return run.failed || this.discards !== run.since;
  }

  /**
   * Runs the subscribers once on a run of events of one instance (one event, or consecutive events of
   * the batched types), without waiting for their writes to be durable: its `outcome` tells. While the
   * instance is in a storage outage it is not run (`failed`: {@link again} handles it). Answers
   * undefined when there is nothing to handle (an unknown instance, every event filtered out).
   */
  async handleOnce(batch: BusEvent[]): Promise<HandledRun | undefined> {
    const first = batch[0]!;
    let runtime: InstanceRuntime;
    try {
      runtime = await this.deps.registry.byIdOrThrow(first.instance);
    } catch (err) {
      this.deps.logger.warn({ err, event: first.id, type: first.type, instance: first.instance, events: batch.length }, 'event for an unknown instance dropped');
      return undefined;
    }
    const events = batch.filter((event) => event.type === 'sent' || this.deps.filter(event, runtime));
    if (!events.length) return undefined;
    const since = this.discards;
    const run: HandledRun = { runtime, events, drops: [], since, failed: true, outcome: Promise.resolve('again') };
    // While the instance's storage fails, straight to the outage policy (a run given up tried once, not twice).
    if (this.deps.retry.blocked(runtime.id)) return run;
    try {
      run.drops = await this.handle(events, runtime, { name: '' }, since);
    } catch {
      // An outage: handled again, under the outage policy, after the instance's earlier runs.
      return run;
    }
    run.failed = false;
    run.outcome = this.committed(events).then(() => (this.discards === since ? 'durable' : 'again'), () => 'again');
    return run;
  }

  /**
   * Handles a run again until its writes are durable (every subscriber, and the commit awaited), under
   * the outage policy ({@link SubscriberRetry.run}): a storage outage is waited out, the instance's later
   * events held behind it. Running it again is harmless: every subscriber's writes are idempotent (upserts;
   * deliveries and log entries keyed by the event's id) and effects outside storage are not repeated.
   * Answers why the run was given up, logged and counted, or undefined.
   */
  async again(run: HandledRun): Promise<{ reason: EventDropReason } | undefined> {
    const { events, runtime } = run;
    const step = { name: '' };
    const failed = await this.deps.retry.run(runtime.id, async () => {
      const since = this.discards;
      run.drops = await this.handle(events, runtime, step, since);
      step.name = 'commit';
      await this.committed(events);
      if (this.discards !== since) throw DISCARDED();
    });
    if (failed) {
      this.deps.observer?.eventsDropped(failed.reason, events.length);
      this.deps.logger.error(
        { err: failed.err, reason: failed.reason, step: step.name, type: events[0]!.type, instance: runtime.id, events: events.map((e) => e.id) },
        failed.reason === 'failed' ? 'event handling failed after retries' : 'event handling given up: storage stayed unavailable',
      );
    }
    return failed;
  }

  /**
   * A run is over (durable, or given up: `failed`): logs what a subscriber gave up, tells the taps, and
   * answers the instance's record and the events handled.
   */
  finish(run: HandledRun, failed: boolean): Handled {
    const { events, runtime } = run;
    if (!failed) this.deps.retry.recovered(runtime.id);
    for (const drop of failed ? [] : run.drops) {
      this.deps.observer?.eventsDropped(drop.reason, drop.events.length);
      this.deps.logger.error(
        { err: drop.err, reason: drop.reason, subscriber: drop.subscriber, type: events[0]!.type, instance: runtime.id, events: drop.events.map((e) => e.id) },
        'event handling failed after retries',
      );
    }
    for (const event of events) if (event.type !== 'sent') for (const tap of this.deps.taps) tap(event);
    return { record: runtime.record, events: new Set(events), lost: new Set(failed ? events : run.drops.flatMap((drop) => drop.events)) };
  }

  /**
   * One pass of the subscribers over `events`, each with the short retry of failures other than an
   * outage ({@link SubscriberRetry.attempt}); answers the runs a subscriber gave up. An outage is thrown,
   * and so is a commit discarded since `since` (the discard count when the handling began). `step` names the subscriber at work, for the log line of a run given up.
   */
  private async handle(events: BusEvent[], runtime: InstanceRuntime, step: { name: string }, since: number): Promise<SubscriberDrop[]> {
    const drops: SubscriberDrop[] = [];
    const attempt = async (subscriber: EventSubscriber, some: BusEvent[], run: () => Promise<void>): Promise<void> => {
      step.name = subscriber.name;
      // The store's writes may be gone with a failed commit: no subscriber goes on from them (webhooks tell of stored state).
      if (this.discards !== since) throw DISCARDED();
      const failed = await this.deps.retry.attempt(run);
      if (failed) drops.push({ ...failed, subscriber: subscriber.name, events: some });
    };
    // The send path's records among a run's channel events go to the store alone, after them.
    const sentEvents = events.filter((event): event is SentEvent => event.type === 'sent');
    const channelEvents = sentEvents.length ? events.filter((event): event is ChannelEvent => event.type !== 'sent') : events as ChannelEvent[];
    const sent = sentEvents.map((event) => event.sent);
    for (const subscriber of this.deps.subscribers) {
      if (channelEvents.length > 1 && subscriber.handleBatch) {
        await attempt(subscriber, channelEvents, () => subscriber.handleBatch!(channelEvents, runtime.record, runtime));
      } else {
        for (const event of channelEvents) await attempt(subscriber, [event], () => subscriber.handle(event, runtime.record, runtime));
      }
      if (sent.length && subscriber.handleSent) await attempt(subscriber, sentEvents, () => subscriber.handleSent!(sent, runtime));
    }
    return drops;
  }

  /**
   * Resolves once the writes of the handling are durable (`durable`); rejects when they are not. A
   * flush answered `not_replicated` (Redis with Sentinel: the writes are on the master, no replica
   * confirmed them in time) counts as written: running the handling again would not make a replica
   * confirm sooner, and holding the instance's events would turn a missing replica into an event
   * outage (docs/events.md, *When storage is unavailable*). It is logged, a line a minute.
   */
  private async committed(events: BusEvent[]): Promise<void> {
    try {
      await this.deps.durable?.();
    } catch (err) {
      if (!isNotReplicated(err)) throw err;
      this.unreplicated.note((batches) => this.deps.logger.warn({ error: describeError(err), event: events[0]!.id, events: events.length, batches },
        'the writes of handled events were not confirmed by a replica; kept as written on the master'));
    }
  }
}
