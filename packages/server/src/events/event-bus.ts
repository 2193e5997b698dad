import {
  CLAIM_FAILURE_LOG_MS, describeError, KeyedSerialQueue, LogThrottle, newUlid, withBoundedRetry, type ChannelEvent, type ChannelEventPayload, type ChannelName, type Clock, type InstanceRecord, type Logger,
} from '@parley/core';
import type { InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';

/**
 * A consumer of channel events: the storage projector, the webhook engine of `@parley/webhooks`
 * (its `handle(event, instance)` fits as it is), anything else.
 */
export interface EventSubscriber {
  readonly name: string;
  /**
   * Handles one event of `instance` (the current record; `runtime` is the loaded instance with its
   * adapters). The bus awaits it before the next subscriber and the next event of the same instance.
   */
  handle(event: ChannelEvent, instance: InstanceRecord, runtime: InstanceRuntime): Promise<void>;
  /**
   * Optional: handles a run of consecutive events of one instance, all of one {@link BATCHED_TYPES}
   * type, as `handle` would one after another — the run that queued up while the instance's earlier
   * events were processed, so a networked store can serve it in a few round trips instead of a few
   * per event. Without it (or for a run of one) the bus calls `handle` for each.
   */
  handleBatch?(events: readonly ChannelEvent[], instance: InstanceRecord, runtime: InstanceRuntime): Promise<void>;
}

/** Event types whose consecutive runs are handed to {@link EventSubscriber.handleBatch}. */
export const BATCHED_TYPES: ReadonlySet<ChannelEvent['type']> = new Set(['message', 'message.status']);
/** Longest run handed over at once. */
const MAX_BATCH = 256;
/** A task of {@link EventBus.run} in an instance's queue: no event is batched across it. */
const BARRIER = Symbol('barrier');

/** Decides whether an event is processed at all (instance flags such as `receive_presence`). */
export type EventFilter = (event: ChannelEvent, runtime: InstanceRuntime) => boolean;

/** A published event on its way through the subscribers; {@link EventBus.watch} listeners get it in publish order. */
interface InFlight {
  readonly event: ChannelEvent;
  /** The instance's record once the subscribers have handled the event; absent while pending or when dropped. */
  record?: InstanceRecord;
  settled: boolean;
}

/** Observes handled events in publish order (see {@link EventBus.watch}). */
export type EventWatcher = (event: ChannelEvent, instance: InstanceRecord) => void;

/** Bounded retry of a failing subscriber: 3 attempts after the first, 100 ms, 500 ms, 2 s apart. */
const SUBSCRIBER_RETRY_DELAYS_MS = [100, 500, 2000];

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
  /** Per instance, the run of events its chain is handling now. */
  private readonly handlingNow = new Map<string, readonly InFlight[]>();
  private readonly taps = new Set<(event: ChannelEvent) => void>();
  /** The records of the `message` events published and not processed yet ({@link isMessagePending}). */
  private readonly pendingRecords = new WeakSet<object>();
  private readonly watchers = new Set<EventWatcher>();
  /**
   * Published events not yet told to the watchers, in publish (= id) order, from `inFlightHead` on;
   * the slots before it are emptied as they are told, so a told event (a history batch of up to
   * 500 records) is not kept alive until the next compaction.
   */
  private inFlight: (InFlight | undefined)[] = [];
  private inFlightHead = 0;
  private readonly registry: InstanceRegistry;
  private readonly subscribers: readonly EventSubscriber[];
  private readonly filter: EventFilter;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly durable: (() => Promise<void>) | undefined;
  /** Commits that fail fail for every batch while storage cannot write (a full disk): a line a minute, not one per batch. */
  private readonly uncommitted = new LogThrottle(CLAIM_FAILURE_LOG_MS);

  /**
   * Built over the registry whose adapters publish into it, with every subscriber, in the order
   * they handle each event (the store first, so webhooks tell of stored state).
   */
  constructor(options: {
    registry: InstanceRegistry; subscribers: EventSubscriber[]; filter: EventFilter; clock: Clock; logger: Logger;
    /**
     * Resolves when every write made so far is durable (`Storage.flush`). Watchers are told of an
     * event only after it, but the instance's next event does not wait for it: a batching back end
     * (SQLite) commits a turn's writes together instead of one commit per event of the chain.
     */
    durable?: () => Promise<void>;
  }) {
    ({ registry: this.registry, filter: this.filter, clock: this.clock, logger: this.logger } = options);
    this.durable = options.durable;
    this.subscribers = [...options.subscribers];
    this.registry.publishTo(this);
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
    const slot: InFlight = { event, settled: false };
    if (event.type === 'message') this.pendingRecords.add(event.message.record);
    this.inFlight.push(slot);
    this.queue(instanceId, slot);
    void this.chains.run(instanceId, () => this.turnOf(slot));
  }

  private queue(instanceId: string, entry: InFlight | typeof BARRIER): void {
    const list = this.waiting.get(instanceId);
    if (list) list.push(entry);
    else this.waiting.set(instanceId, [entry]);
  }

  /** Takes the head of an instance's queue: the entry whose turn it is. */
  private dequeue(instanceId: string): void {
    const list = this.waiting.get(instanceId)!;
    list.shift();
    if (!list.length) this.waiting.delete(instanceId);
  }

  /**
   * An event's turn: processed with the events of its type queued right after it (up to a barrier),
   * unless it was processed already with an earlier one.
   */
  private async turnOf(slot: InFlight): Promise<void> {
    if (this.taken.has(slot)) return;
    const { instance, type } = slot.event;
    const batch = [slot];
    this.dequeue(instance);
    if (BATCHED_TYPES.has(type)) {
      const list = this.waiting.get(instance);
      while (list?.length && batch.length < MAX_BATCH) {
        const next = list[0]!;
        if (next === BARRIER || next.event.type !== type) break;
        batch.push(next);
        this.taken.add(next);
        this.dequeue(instance);
      }
    }
    this.handlingNow.set(instance, batch);
    try {
      await this.process(batch);
    } finally {
      this.handlingNow.delete(instance);
    }
  }

  /**
   * Runs a task in the instance's event order (after every event published so far, before any
   * published later) and answers its result. The send path stores its records this way, so a
   * delivery status can never be applied before the message it belongs to.
   */
  run<T>(instanceId: string, task: () => Promise<T>): Promise<T> {
    this.queue(instanceId, BARRIER);
    return this.chains.run(instanceId, () => {
      this.dequeue(instanceId);
      return task();
    });
  }

  /**
   * Whether a `message` event carrying this very record object is published and not processed yet
   * (waiting for its turn or being handled): the send path's test for a channel's echo of its send.
   * One lookup, however many events wait.
   */
  isMessagePending(record: object): boolean {
    return this.pendingRecords.has(record);
  }

  /**
   * Resolves once every event of the instance published so far, and every task queued by
   * {@link run}, has been processed. Unlike `run` it queues no barrier: events published meanwhile
   * keep forming runs for `handleBatch`.
   */
  processed(instanceId: string): Promise<void> {
    return this.chains.after(instanceId);
  }

  /** Resolves when every event published so far has been processed. */
  async drain(): Promise<void> {
    await this.chains.idle();
  }

  private async process(batch: InFlight[]): Promise<void> {
    try {
      const handled = await this.handle(batch.map((slot) => slot.event));
      if (handled) for (const slot of batch) if (handled.events.has(slot.event)) slot.record = handled.record;
    } finally {
      for (const { event } of batch) if (event.type === 'message') this.pendingRecords.delete(event.message.record);
      const settle = (): void => {
        for (const slot of batch) slot.settled = true;
        this.release();
      };
      if (this.durable) {
        void this.durable().then(settle, (err: unknown) => {
          const event = batch[0]!.event.id;
          this.uncommitted.note((batches) => this.logger.error({ error: describeError(err), event, events: batch.length, batches },
            'the writes of handled events did not commit; told to watchers anyway'));
          settle();
        });
      } else settle();
    }
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

  /**
   * Runs the subscribers on a run of events of one instance (one event, or consecutive events of one
   * batched type); answers the instance's record and the events handled (the others were dropped).
   */
  private async handle(batch: ChannelEvent[]): Promise<{ record: InstanceRecord; events: Set<ChannelEvent> } | undefined> {
    const first = batch[0]!;
    let runtime: InstanceRuntime;
    try {
      runtime = await this.registry.byIdOrThrow(first.instance);
    } catch (err) {
      this.logger.warn({ err, event: first.id, type: first.type, instance: first.instance, events: batch.length }, 'event for an unknown instance dropped');
      return undefined;
    }
    const events = batch.filter((event) => this.filter(event, runtime));
    if (!events.length) return undefined;
    for (const subscriber of this.subscribers) {
      if (events.length > 1 && subscriber.handleBatch) {
        await this.attempt(subscriber, events, () => subscriber.handleBatch!(events, runtime.record, runtime));
      } else {
        for (const event of events) await this.attempt(subscriber, [event], () => subscriber.handle(event, runtime.record, runtime));
      }
    }
    for (const event of events) for (const tap of this.taps) tap(event);
    return { record: runtime.record, events: new Set(events) };
  }

  /** Runs a subscriber's handling with the bounded retry; a failure after the last retry is logged and left behind. */
  private async attempt(subscriber: EventSubscriber, events: ChannelEvent[], run: () => Promise<void>): Promise<void> {
    const failed = await withBoundedRetry(run, SUBSCRIBER_RETRY_DELAYS_MS);
    if (!failed) return;
    const event = events[0]!;
    this.logger.error(
      { err: failed.err, subscriber: subscriber.name, event: event.id, type: event.type, instance: event.instance, events: events.length },
      'event handling failed after retries',
    );
  }

}
