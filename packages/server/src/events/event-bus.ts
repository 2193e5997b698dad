import {
  KeyedSerialQueue, newUlid, type ChannelEvent, type ChannelEventPayload, type ChannelName, type Clock, type InstanceRecord, type Logger,
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
}

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
export const SUBSCRIBER_RETRY_DELAYS_MS = [100, 500, 2000];

/**
 * Stamps adapter payloads into {@link ChannelEvent}s and hands them to the subscribers in order:
 * events of one instance are processed one after another (so statuses never overtake their
 * message); instances proceed independently.
 */
export class EventBus {
  private readonly chains = new KeyedSerialQueue();
  private readonly taps = new Set<(event: ChannelEvent) => void>();
  private readonly watchers = new Set<EventWatcher>();
  /** Published events not yet told to the watchers, in publish (= id) order. */
  private inFlight: InFlight[] = [];
  private inFlightHead = 0;
  private readonly registry: InstanceRegistry;
  private readonly subscribers: readonly EventSubscriber[];
  private readonly filter: EventFilter;
  private readonly clock: Clock;
  private readonly logger: Logger;

  /**
   * Built over the registry whose adapters publish into it, with every subscriber, in the order
   * they handle each event (the store first, so webhooks tell of stored state).
   */
  constructor(options: { registry: InstanceRegistry; subscribers: EventSubscriber[]; filter: EventFilter; clock: Clock; logger: Logger }) {
    ({ registry: this.registry, filter: this.filter, clock: this.clock, logger: this.logger } = options);
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

  /** Accepts a payload from an adapter; never throws. */
  publish(instanceId: string, provider: ChannelName, payload: ChannelEventPayload): void {
    // Object.assign, not `{ ...payload, id, … }`: V8 (Node 20) builds a new hidden class for every
    // object that spreads one source and then adds members, which cost 2 µs per event here.
    const now = this.clock.now();
    const event = Object.assign({}, payload, { id: newUlid(now), instance: instanceId, provider, receivedAt: now }) as ChannelEvent;
    const slot: InFlight = { event, settled: false };
    this.inFlight.push(slot);
    void this.chains.run(instanceId, () => this.process(slot));
  }

  /**
   * Runs a task in the instance's event order (after every event published so far, before any
   * published later) and answers its result. The send path stores its records this way, so a
   * delivery status can never be applied before the message it belongs to.
   */
  run<T>(instanceId: string, task: () => Promise<T>): Promise<T> {
    return this.chains.run(instanceId, task);
  }

  /** Resolves when every event published so far has been processed. */
  async drain(): Promise<void> {
    await this.chains.idle();
  }

  private async process(slot: InFlight): Promise<void> {
    try {
      const record = await this.handle(slot.event);
      if (record) slot.record = record;
    } finally {
      slot.settled = true;
      this.release();
    }
  }

  /** Tells the watchers of the settled events at the head of the in-flight list. */
  private release(): void {
    const list = this.inFlight;
    while (this.inFlightHead < list.length && list[this.inFlightHead]!.settled) {
      const { event, record } = list[this.inFlightHead++]!;
      if (!record) continue;
      for (const watcher of this.watchers) {
        try {
          watcher(event, record);
        } catch (err) {
          this.logger.error({ err, event: event.id }, 'event watcher failed');
        }
      }
    }
    // Compact now and then rather than shift() per event.
    if (this.inFlightHead > 1024 && this.inFlightHead * 2 > list.length) {
      this.inFlight = list.slice(this.inFlightHead);
      this.inFlightHead = 0;
    }
  }

  /** Runs the subscribers; answers the instance's record, or undefined when the event was dropped. */
  private async handle(event: ChannelEvent): Promise<InstanceRecord | undefined> {
    let runtime: InstanceRuntime;
    try {
      runtime = await this.registry.byIdOrThrow(event.instance);
    } catch (err) {
      this.logger.warn({ err, event: event.id, type: event.type, instance: event.instance }, 'event for an unknown instance dropped');
      return undefined;
    }
    if (!this.filter(event, runtime)) return undefined;
    for (const subscriber of this.subscribers) {
      for (let attempt = 0; ; attempt++) {
        try {
          await subscriber.handle(event, runtime.record, runtime);
          break;
        } catch (err) {
          const delay = SUBSCRIBER_RETRY_DELAYS_MS[attempt];
          if (delay === undefined) {
            this.logger.error({ err, subscriber: subscriber.name, event: event.id, type: event.type, instance: event.instance }, 'event handling failed after retries');
            break;
          }
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    }
    for (const tap of this.taps) tap(event);
    return runtime.record;
  }
}
