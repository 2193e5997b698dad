import { decodeStored, encodeStored, type ChannelEvent, type Clock, type InstanceRecord, type Logger, type StorageSignals } from '@parley/core';
import type { EventBus } from '../events/event-bus.js';
import type { StreamHub } from '../streams/stream-hub.js';
import { AdminWatch, type AdminWatchTiming } from './admin-watch.js';

/** The storage signal topic the nodes tell each other their handled events on. */
export const CLUSTER_EVENTS_TOPIC = 'cluster.events';

/** One signal: a node's events handled in one turn, in id order (each event as the event log stores it). */
interface EventsSignal {
  node: string;
  events: { instance: string; event: string }[];
}

/**
 * A consumer of the other nodes' events on this node besides the admin streams (the MCP sessions'
 * subscriptions). While any node has one that wants them, every node publishes its events.
 */
export interface EventAudience {
  /** Whether it wants the other nodes' events now. */
  wanted(): boolean;
  /** An event another node's bus handled (in the shared event log), with its instance's record. */
  offer(event: ChannelEvent, record: InstanceRecord): void;
  /** Events of other nodes may have been missed (the link to the store was lost: signals are at most once). */
  missed(): void;
}

/** What the fan-in needs. */
export interface EventFanInDeps {
  nodeId: string;
  signals: StorageSignals;
  bus: Pick<EventBus, 'watch'>;
  hub: Pick<StreamHub, 'adminCount' | 'offerAdmin' | 'endAdmin'>;
  /** An instance's current record (null when deleted: its events are skipped, as a replay skips them). */
  record(id: string): Promise<InstanceRecord | null>;
  clock: Clock;
  /** Ids of the other live nodes. */
  peers(): Promise<string[]>;
  logger: Logger;
  /** The admin watch's timing (tests shorten it). */
  watchTiming?: AdminWatchTiming;
}

/**
 * Makes the admin-wide event stream of every node carry every node's events. Each node publishes
 * the events its bus handled (already in the shared event log: the bus tells its watchers only then)
 * as one storage signal per turn, while some node has an admin stream open or another
 * {@link EventAudience} that wants them, such as an MCP session's subscriptions ({@link AdminWatch});
 * every node hears the others' and offers them to its admin streams and audiences. Signals are at most
 * once: when the link to the store was lost the admin streams are ended, and their clients resume from
 * the event log with their last id; the audiences are told ({@link EventAudience.missed}).
 */
export class EventFanIn {
  private batch: EventsSignal['events'] = [];
  private publishing: Promise<void> = Promise.resolve();
  /** Heard signals are offered in the order heard, one after another (records are read on the way). */
  private offering: Promise<void> = Promise.resolve();
  private stops: (() => unknown)[] = [];
  private warned = false;
  private readonly watch: AdminWatch;
  private readonly audiences: EventAudience[] = [];

  constructor(private readonly deps: EventFanInDeps) {
    const { nodeId, signals, clock, peers, logger, watchTiming } = deps;
    this.watch = new AdminWatch({ nodeId, signals, clock, peers, watched: () => this.wanted(), logger, ...(watchTiming ? { timing: watchTiming } : {}) });
  }

  /** Adds a consumer of the other nodes' events; it calls {@link watching} when it starts wanting them. */
  add(audience: EventAudience): void {
    this.audiences.push(audience);
  }

  /** Subscribes to the other nodes' events and starts publishing this node's while they are wanted. */
  async start(): Promise<void> {
    const { signals, bus, hub, logger } = this.deps;
    this.stops.push(await signals.subscribe(CLUSTER_EVENTS_TOPIC, (message) => this.heard(message)));
    await this.watch.start();
    this.stops.push(() => this.watch.stop());
    this.stops.push(signals.onReconnect(() => {
      logger.warn('link to the store was lost: admin event streams ended, their clients resume from the event log');
      this.watch.reset();
      this.missed();
    }));
    this.stops.push(bus.watch((event, instance) => this.told(event, instance)));
  }

  /**
   * An admin stream (or another audience's want) of this node starts: resolves once the other nodes
   * publish their events (see {@link AdminWatch.watch}), so that its replay, read afterwards, and the
   * live events meet.
   */
  watching(): Promise<void> {
    return this.watch.watch();
  }

  /** Stops publishing and hearing; waits for the last publish. */
  async stop(): Promise<void> {
    for (const stop of this.stops.splice(0)) await stop();
    await this.publishing;
  }

  private told(event: ChannelEvent, instance: InstanceRecord): void {
    if (!this.watch.wanted()) return;
    if (this.batch.length === 0) queueMicrotask(() => this.publish());
    this.batch.push({ instance: instance.id, event: encodeStored(event) });
  }

  private publish(): void {
    const signal: EventsSignal = { node: this.deps.nodeId, events: this.batch };
    this.batch = [];
    const text = JSON.stringify(signal);
    // Chained: the signals of one node are heard in the order its events were handled.
    this.publishing = this.publishing.then(() => this.deps.signals.publish(CLUSTER_EVENTS_TOPIC, text)).then(
      () => void (this.warned = false),
      (err: unknown) => {
        // The events are in the event log: admin clients of other nodes find them when they resume.
        if (!this.warned) this.deps.logger.warn({ err, events: signal.events.length }, 'events could not be told to the other nodes\' admin streams');
        this.warned = true;
      },
    );
  }

  /** Whether this node's admin streams or another audience want the other nodes' events. */
  private wanted(): boolean {
    return this.deps.hub.adminCount() > 0 || this.audiences.some((a) => a.wanted());
  }

  private missed(): void {
    this.deps.hub.endAdmin();
    for (const audience of this.audiences) audience.missed();
  }

  private heard(message: string): void {
    if (!this.wanted()) return;
    let signal: EventsSignal;
    try {
      signal = JSON.parse(message) as EventsSignal;
    } catch (err) {
      this.deps.logger.warn({ err }, 'unreadable events signal ignored');
      return;
    }
    if (signal.node === this.deps.nodeId) return;
    this.offering = this.offering.then(() => this.offer(signal)).catch((err: unknown) => {
      this.deps.logger.warn({ err }, 'events of another node could not be offered to the admin streams; they resume from the event log');
      this.missed();
    });
  }

  private async offer(signal: EventsSignal): Promise<void> {
    const records = new Map<string, InstanceRecord | null>();
    for (const { instance } of signal.events) if (!records.has(instance)) records.set(instance, await this.deps.record(instance));
    const admin = this.deps.hub.adminCount() > 0;
    const audiences = this.audiences.filter((a) => a.wanted());
    for (const { instance, event } of signal.events) {
      const record = records.get(instance);
      if (!record) continue;
      const decoded = decodeStored<ChannelEvent>(event);
      if (admin) this.deps.hub.offerAdmin(decoded, record);
      for (const audience of audiences) audience.offer(decoded, record);
    }
  }
}
