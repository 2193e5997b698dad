import {
  KeyedSerialQueue, newUlid, ServiceUnavailableError, type ChannelEvent, type ChannelEventPayload, type ChannelName, type Clock, type InstanceRecord, type Logger,
} from '@parley/core';
import type { InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { DurableRuns } from './durable-runs.js';
import { EventBacklog, type BacklogLimits } from './event-backlog.js';
import { RunHandler, type Handled, type HandledRun, type EventBusObserver, type EventFilter, type EventSubscriber } from './run-handler.js';
import type { BusEvent, SentEvent, SentRecord } from './sent-records.js';
import { DEFAULT_OUTAGE_POLICY, SubscriberRetry, type OutagePolicy } from './subscriber-retry.js';

export type { EventBusObserver, EventFilter, EventSubscriber } from './run-handler.js';

/**
 * Event types handed together to {@link EventSubscriber.handleBatch}: a run takes every event of these
 * types queued for the instance, in any mix and in publish order (a send's message and its statuses,
 * interleaved with the next sends' under load), up to {@link MAX_BATCH} and a barrier.
 */
export const BATCHED_TYPES: ReadonlySet<BusEvent['type']> = new Set(['message', 'message.status']);
/** Longest run handed over at once. */
const MAX_BATCH = 256;
/** A task of {@link EventBus.run} in an instance's queue: no event is batched across it. */
const BARRIER = Symbol('barrier');

/** Whether an event joins a run: a send path's record or an event of {@link BATCHED_TYPES}. */
const batchable = (event: BusEvent): boolean => event.type === 'sent' || BATCHED_TYPES.has(event.type);

/** An event on its way through the subscribers. */
interface InFlight {
  readonly event: BusEvent;
  /** The instance's record once the subscribers have handled the event; absent while pending or when dropped. */
  record?: InstanceRecord;
  settled: boolean;
  /** A {@link SentEvent}'s: told whether its record is durable once its run is over. */
  readonly stored?: (stored: boolean) => void;
}

/** A channel's event on its way; {@link EventBus.watch} listeners get these in publish order (never the send path's records). */
interface Published extends InFlight {
  readonly event: ChannelEvent;
}

/** Observes handled events in publish order (see {@link EventBus.watch}). */
export type EventWatcher = (event: ChannelEvent, instance: InstanceRecord) => void;

/**
 * Stamps adapter payloads into {@link ChannelEvent}s and hands them to the subscribers in order:
 * events of one instance are processed one after another (so statuses never overtake their
 * message); instances proceed independently.
 */
export class EventBus {
  private readonly chains = new KeyedSerialQueue();
  /** Per instance, what its chain has yet to process, in order: events and barriers. */
  private readonly waiting = new Map<string, (InFlight | typeof BARRIER)[]>();
  /** Events processed with an earlier one of their run: their own turn on the chain has nothing left to do. */
  private readonly taken = new WeakSet<InFlight>();
  private readonly taps = new Set<(event: ChannelEvent) => void>();
  private readonly watchers = new Set<EventWatcher>();
  /**
   * Published events not yet told to the watchers, in publish (= id) order, from `inFlightHead` on;
   * the slots before it are emptied as they are told, so a told event (a history batch of up to
   * 500 records) is not kept alive until the next compaction.
   */
  private inFlight: (Published | undefined)[] = [];
  private inFlightHead = 0;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly retry: SubscriberRetry;
  private readonly backlog: EventBacklog;
  private readonly observer: EventBusObserver | undefined;
  private readonly runs: RunHandler;
  private readonly durableRuns: DurableRuns;

  /**
   * Built over the registry whose adapters publish into it, with every subscriber, in the order
   * they handle each event (the store first, so webhooks tell of stored state).
   */
  constructor(options: {
    registry: InstanceRegistry; subscribers: EventSubscriber[]; filter: EventFilter; clock: Clock; logger: Logger;
    /**
     * Resolves when every write made so far is durable (`Storage.flush`). An event is over (told to
     * the watchers, {@link processed}) once it resolves, but the instance's next event does not wait
     * for it, so a batching back end (SQLite) commits many events' writes together; a rejection (a
     * failed group commit) makes the run handled again, with the instance's later runs (see {@link DurableRuns}).
     */
    durable?: () => Promise<void>;
    /**
     * Registers a listener told whenever the storage discards writes it had accepted (`Storage.onDiscard`:
     * SQLite's failed group commit): every run handled or waiting for its commit then is handled again.
     */
    onDiscard?: (listener: () => void) => void;
    /** How a storage outage is waited out (default {@link DEFAULT_OUTAGE_POLICY}). */
    outage?: Partial<OutagePolicy>;
    /** What an instance may hold in memory while its storage is unavailable (default {@link EventBacklog}'s). */
    backlog?: Partial<BacklogLimits>;
    observer?: EventBusObserver;
  }) {
    ({ clock: this.clock, logger: this.logger, observer: this.observer } = options);
    this.retry = new SubscriberRetry({ ...DEFAULT_OUTAGE_POLICY, ...options.outage }, this.clock);
    this.backlog = new EventBacklog(options.backlog);
    this.runs = new RunHandler({
      registry: options.registry, subscribers: [...options.subscribers], filter: options.filter, retry: this.retry, logger: this.logger,
      durable: options.durable, observer: this.observer, taps: this.taps,
    });
    this.durableRuns = new DurableRuns(this.runs, (instance, task) => void this.chains.run(instance, task));
    options.onDiscard?.(() => this.runs.discarded());
    options.registry.publishTo(this);
  }

  /** Observes every processed event (tests, diagnostics). Answers an unsubscribe function. */
  tap(listener: (event: ChannelEvent) => void): () => void {
    this.taps.add(listener);
    return () => this.taps.delete(listener);
  }

  /**
   * Observes every handled event in publish order, which is id order: an event is told once every
   * subscriber has handled it (the event log has it) and every event published before it has been
   * handled or dropped. The live event streams rely on that order: a client that saw id X has seen
   * every earlier event of its selection. Answers an unsubscribe function.
   */
  watch(watcher: EventWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /**
   * An exclusive upper bound of the ids whose handling is over: the id of the oldest event still in
   * a subscriber's hands, or a bound above every id when none is. An event-log entry below it has
   * been told to the watchers already (or never will be); one at or above it will be.
   */
  horizon(): string {
    return this.inFlight[this.inFlightHead]?.event.id ?? '\uffff';
  }

  /**
   * Whether this bus is still handling the event with this id (published here, not yet told to the
   * watchers). An event-log entry at or above {@link horizon} that it is not handling was written by
   * another process sharing the log (a cluster node) or was told already.
   */
  handling(id: string): boolean {
    // The in-flight list is in id order: a binary search from its head.
    const list = this.inFlight;
    let low = this.inFlightHead;
    let high = list.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const at = list[mid]!.event.id;
      if (at === id) return true;
      if (at < id) low = mid + 1;
      else high = mid - 1;
    }
    return false;
  }

  /** Accepts a payload from an adapter; never throws. */
  publish(instanceId: string, provider: ChannelName, payload: ChannelEventPayload): void {
    // Object.assign, not `{ ...payload, id, … }`: V8 (Node 20) builds a new hidden class for every
    // object that spreads one source and then adds members, which cost 2 µs per event here.
    const now = this.clock.now();
    const event = Object.assign({}, payload, { id: newUlid(now), instance: instanceId, provider, receivedAt: now }) as ChannelEvent;
    const refused = this.backlog.admit(instanceId, event, this.waiting.get(instanceId)?.length ?? 0, this.retry.blocked(instanceId));
    if (refused) {
      this.logger.error({ event: event.id, type: event.type, instance: instanceId, ...refused },
        'event dropped: the instance holds too many events while its storage is unavailable');
      this.observer?.eventsDropped('backlog', 1);
      return;
    }
    const slot: Published = { event, settled: false };
    this.inFlight.push(slot);
    this.queue(instanceId, slot);
    void this.chains.run(instanceId, () => this.turnOf(slot));
  }

  /**
   * Hands the record of a message its channel took to the store, as an event of the instance (a
   * {@link SentEvent}, which only the store's `handleSent` sees): stored after every event published
   * before it — the statuses the channel emitted before its send returned apply after the record — and
   * in the runs of records that queue up meanwhile. Resolves once the record is durable. Rejects with
   * ServiceUnavailableError once the instance's events fail for storage (the record is still stored,
   * in order, once storage is back: the bus holds it as it holds the instance's events), or when its
   * storing was given up.
   */
  publishSent(instanceId: string, provider: ChannelName, sent: SentRecord): Promise<void> {
    const event: SentEvent = { type: 'sent', id: `sent:${sent.record.key.id}`, instance: instanceId, provider, sent };
    const stored = new Promise<void>((resolve, reject) => {
      const slot: InFlight = {
        event, settled: false,
        stored: (ok) => (ok ? resolve() : reject(new ServiceUnavailableError(`the record of message ${sent.record.key.id} could not be stored`))),
      };
      this.queue(instanceId, slot);
      void this.chains.run(instanceId, () => this.turnOf(slot));
    });
    return this.unlessBlocked(instanceId, stored);
  }

  private queue(instanceId: string, entry: InFlight | typeof BARRIER): void {
    const list = this.waiting.get(instanceId);
    if (list) list.push(entry);
    else this.waiting.set(instanceId, [entry]);
  }

  /** Takes the head of an instance's queue: the entry whose turn it is. */
  private dequeue(instanceId: string): void {
    const list = this.waiting.get(instanceId)!;
    const head = list.shift();
    if (head !== BARRIER) this.backlog.taken(instanceId, head!.event);
    if (!list.length) this.waiting.delete(instanceId);
  }

  /**
   * An event's turn: processed with the batchable events queued right after it (messages and statuses
   * alike, in order, up to a barrier), unless it was processed already with an earlier one. The send
   * path's records join such a run wherever they stand in it, so they never cut one: the store applies
   * them after the run's channel events, and a status of theirs that came first waits for its record as
   * an early status.
   */
  private async turnOf(slot: InFlight): Promise<void> {
    if (this.taken.has(slot)) return;
    const { instance } = slot.event;
    const batch = [slot];
    this.dequeue(instance);
    if (batchable(slot.event)) {
      const list = this.waiting.get(instance);
      while (list?.length && batch.length < MAX_BATCH) {
        const next = list[0]!;
        if (next === BARRIER || !batchable(next.event)) break;
        batch.push(next);
        this.taken.add(next);
        this.dequeue(instance);
      }
    }
    await this.process(batch);
  }

  /**
   * Runs a task in the instance's event order (after every event published so far is over — its
   * writes durable —, before any published later) and answers its result: REST routes that read
   * what the instance's events wrote (labels, actions, external databases).
   */
  run<T>(instanceId: string, task: () => Promise<T>): Promise<T> {
    this.queue(instanceId, BARRIER);
    return this.chains.run(instanceId, async () => {
      this.dequeue(instanceId);
      await this.durableRuns.settle(instanceId);
      return task();
    });
  }

  /**
   * Resolves once every event of the instance published so far is over (handled, its writes durable),
   * and every task queued by {@link run} has run. Unlike `run` it queues no barrier and does not hold the
   * chain: events published meanwhile keep forming runs for `handleBatch`, and are handled meanwhile.
   */
  async processed(instanceId: string): Promise<void> {
    await this.chains.after(instanceId);
    await this.durableRuns.settled(instanceId);
  }

  /**
   * Settles as `work` (a {@link run} or {@link processed} of the instance), unless the instance's events
   * start failing for storage first: then rejects at once with ServiceUnavailableError, rather than
   * waiting for the outage to end. `work` itself goes on (a `run` task still runs, in order, once
   * storage is back); the caller must not depend on it not having happened.
   */
  unlessBlocked<T>(instanceId: string, work: Promise<T>): Promise<T> {
    work.catch(() => undefined);
    let stop = (): void => undefined;
    const blocked = new Promise<never>((_, reject) => {
      stop = this.retry.whenBlocked(instanceId, () => reject(new ServiceUnavailableError(`storage is unavailable to the events of instance ${instanceId}`)));
    });
    blocked.catch(() => undefined);
    return Promise.race([work, blocked]).finally(stop);
  }

  /** Resolves when every event published so far is over (handled, its writes durable or given up). */
  async drain(): Promise<void> {
    await this.chains.idle();
    await this.durableRuns.idle();
    // Runs handled again were queued on the chains.
    await this.chains.idle();
  }

  /**
   * Shutdown: a storage outage is waited out for `graceMs` more; then the events of instances whose
   * storage still fails are given up (logged and counted as `shutdown`), so {@link drain} ends.
   */
  stopWaiting(graceMs: number): void {
    this.retry.stop(graceMs);
  }

  /**
   * Handles a run once, after the instance's earlier runs that lost writes are handled again; the run is
   * over (its slots settled) once its writes are durable. A run whose handling failed for storage holds
   * the chain until it is handled again: the instance's later events wait out the outage behind it.
   */
  private async process(batch: InFlight[]): Promise<void> {
    const instance = batch[0]!.event.instance;
    const settle = (handled?: Handled): void => {
      if (handled) for (const slot of batch) if (handled.events.has(slot.event)) slot.record = handled.record;
      for (const slot of batch) {
        slot.settled = true;
        slot.stored?.(handled !== undefined && !handled.lost.has(slot.event));
      }
      this.release();
    };
    let run: HandledRun | undefined;
    try {
      await this.durableRuns.again(instance);
      run = await this.runs.handleOnce(batch.map((slot) => slot.event));
    } finally {
      if (!run) settle();
    }
    if (!run) return;
    this.durableRuns.add(run, settle);
    if (run.failed) await this.durableRuns.again(instance);
  }

  /** Tells the watchers of the settled events at the head of the in-flight list. */
  private release(): void {
    const list = this.inFlight;
    while (this.inFlightHead < list.length && list[this.inFlightHead]!.settled) {
      const { event, record } = list[this.inFlightHead]!;
      list[this.inFlightHead++] = undefined;
      if (!record) continue;
      for (const watcher of this.watchers) {
        try {
          watcher(event, record);
        } catch (err) {
          this.logger.error({ err, event: event.id }, 'event watcher failed');
        }
      }
    }
    // Compact now and then rather than shift() per event; at once when everything was told.
    if (this.inFlightHead === list.length) {
      this.inFlight = [];
      this.inFlightHead = 0;
    } else if (this.inFlightHead > 1024 && this.inFlightHead * 2 > list.length) {
      this.inFlight = list.slice(this.inFlightHead);
      this.inFlightHead = 0;
    }
  }
}
