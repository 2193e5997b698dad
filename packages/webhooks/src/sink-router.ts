import {
  NotFoundError, SINK_EVENT_KINDS, ValidationError, type ChannelEvent, type ChannelEventType, type DeadLetter, type InstanceRecord, type NewDelivery,
  type Page, type Sink, type SinkHealth, type SinkSettings, type Storage, type WebhookStats,
} from '@parley/core';
import { sinkDeliveryId, sinkPartition, sinkTarget } from './sink-target.js';

/** A sink as an instance sees it: its settings and whether it can publish now. */
export interface SinkView extends SinkSettings {
  name: string;
  health: SinkHealth;
}

/** What the router needs. */
export interface SinkRouterDeps {
  storage: Storage;
  sinks: ReadonlyMap<string, Sink>;
  /** Names of the registered webhook formats: what a sink setting's `format` may be. */
  formats: ReadonlySet<string>;
  /** Wakes the delivery worker (after a redelivery). */
  wake(): void;
}

/** Settings of a sink the instance never configured. */
const DISABLED: SinkSettings = Object.freeze({ enabled: false, format: 'native', events: null });

/**
 * Routes events to the sinks an instance enabled (`instance.sinks`) as outbox deliveries, and answers
 * the per-instance sink API: settings, statistics, dead letters and redelivery, each per sink.
 */
export class SinkRouter {
  constructor(private readonly deps: SinkRouterDeps) {}

  /**
   * The deliveries of one event: one per enabled sink whose `events` take it and whose format carries
   * it (`render` answers null otherwise). `render` is called once per format.
   */
  deliveries(event: ChannelEvent, instance: InstanceRecord, createdAt: number, render: (format: string) => string | null): NewDelivery[] {
    const out: NewDelivery[] = [];
    for (const [name, settings] of Object.entries(instance.sinks ?? {})) {
      if (!settings.enabled || !this.deps.sinks.has(name)) continue;
      if (settings.events && !settings.events.includes(event.type)) continue;
      const body = render(settings.format);
      if (body === null) continue;
      out.push({
        id: sinkDeliveryId(event.id, name), instance: sinkPartition(instance.id, name), url: sinkTarget(name), format: settings.format,
        eventId: event.id, eventType: event.type, body, createdAt,
      });
    }
    return out;
  }

  /** Every registered sink with the instance's settings, by name. */
  list(instance: InstanceRecord): SinkView[] {
    return [...this.deps.sinks.keys()].sort().map((name) => this.view(instance, name));
  }

  /** One sink as the instance sees it. Throws NotFoundError when no plugin registered it. */
  view(instance: InstanceRecord, name: string): SinkView {
    const sink = this.sink(name);
    return { name, ...DISABLED, ...instance.sinks?.[name], health: sink.health() };
  }

  /**
   * Checks a settings body for the sink `name` and answers it complete (`events` null when left out).
   * Throws NotFoundError for an unknown sink and ValidationError naming the field (`body.format`).
   */
  validate(name: string, body: { enabled: unknown; format: unknown; events?: unknown }): SinkSettings {
    this.sink(name);
    if (typeof body.enabled !== 'boolean') throw new ValidationError('body.enabled must be a boolean');
    if (typeof body.format !== 'string' || !this.deps.formats.has(body.format)) {
      throw new ValidationError(`body.format must be one of ${[...this.deps.formats].sort().join(', ')}`);
    }
    let events: ChannelEventType[] | null = null;
    if (body.events !== undefined && body.events !== null) {
      if (!Array.isArray(body.events)) throw new ValidationError('body.events must be an array of event kinds');
      body.events.forEach((kind, i) => {
        if (!SINK_EVENT_KINDS.includes(kind as ChannelEventType)) {
          throw new ValidationError(`body.events[${i}] must be one of ${SINK_EVENT_KINDS.join(', ')}`);
        }
      });
      events = [...new Set(body.events as ChannelEventType[])];
    }
    return { enabled: body.enabled, format: body.format, events };
  }

  stats(instanceId: string, name: string): Promise<WebhookStats> {
    this.sink(name);
    return this.deps.storage.deliveries.stats(sinkPartition(instanceId, name));
  }

  deadLetters(instanceId: string, name: string, page: { limit: number; offset: number }): Promise<Page<DeadLetter>> {
    this.sink(name);
    return this.deps.storage.deliveries.deadLetters(sinkPartition(instanceId, name), page);
  }

  async redeliver(instanceId: string, name: string, ids?: string[]): Promise<number> {
    this.sink(name);
    const count = await this.deps.storage.deliveries.redeliver(sinkPartition(instanceId, name), ids);
    if (count > 0) this.deps.wake();
    return count;
  }

  /** Makes the postponed deliveries of sink `name` due at `now` (it is reachable again) and wakes the worker. Answers how many lanes. */
  async expedite(name: string, now: number): Promise<number> {
    const count = await this.deps.storage.deliveries.expedite(sinkTarget(name), now);
    if (count > 0) this.deps.wake();
    return count;
  }

  /** Forgets the instance's queued sink deliveries, dead letters and counters (instance deletion). */
  async forget(instance: Pick<InstanceRecord, 'id' | 'sinks'>): Promise<void> {
    const names = new Set([...this.deps.sinks.keys(), ...Object.keys(instance.sinks ?? {})]);
    await Promise.all([...names].map((name) => this.deps.storage.deliveries.clear(sinkPartition(instance.id, name))));
  }

  /** Health of every sink, by name. */
  health(): Record<string, SinkHealth> {
    return Object.fromEntries([...this.deps.sinks].map(([name, sink]) => [name, sink.health()]));
  }

  private sink(name: string): Sink {
    const sink = this.deps.sinks.get(name);
    if (!sink) throw new NotFoundError(`sink "${name}"`, 'sink_not_found');
    return sink;
  }
}
