import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ChannelEvent, InstanceRecord, Storage } from '@parley/core';
import { sinkPartition, type AttemptOutcome, type DeliveryObserver } from '@parley/webhooks';
import type { ClusterGauges, ClusterObserver } from '../cluster/cluster-observer.js';
import type { EventBusObserver } from '../events/event-bus.js';
import type { EventDropReason } from '../events/subscriber-retry.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import type { DropReason } from '../streams/stream-session.js';
import type { StreamObserver } from '../streams/stream-hub.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { FastCounter, FastHistogram } from './fast-metrics.js';

/** Latency buckets (seconds) of HTTP requests and webhook attempts: 1 ms to 10 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Storage operations are mostly sub-millisecond: 50 µs to 1 s. */
const STORAGE_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1];

/** The route label of a request no route matched: never its path, which may carry an instance key. */
export const UNMATCHED_ROUTE = 'unmatched';

let processRegistry: Registry | undefined;

/**
 * prom-client's default metrics (CPU, memory, heap, GC, handles, event-loop lag): one set per
 * process, however many servers it runs (tests start several), merged into every scrape.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** What a scrape reads besides the counters: the instances and the durable delivery queue. */
export interface MetricsSources {
  storage: Storage;
  /** The loaded instances (their live connection state). */
  loaded(): InstanceRuntime[];
  /** Open event streams. */
  streams(): number;
}

/**
 * The server's Prometheus metrics, in a registry of its own (never prom-client's global one, so
 * that several servers in one process keep apart). Counters are moved by the parts that do the
 * work (HTTP app, send pipeline, event bus tap, webhook worker, storage decorator); gauges of
 * instances and pending deliveries (webhooks, and each event sink) are read from storage at scrape time. No label ever holds an
 * instance key or id: routes are templates, the rest are channel, format, kind and state names.
 */
export class ServerMetrics implements DeliveryObserver, StreamObserver, EventBusObserver {
  readonly registry = new Registry();
  private readonly http = new FastHistogram({
    name: 'parley_http_request_duration_seconds', help: 'HTTP requests by method, route template and status, with their duration',
    labelNames: ['method', 'route', 'status'], buckets: LATENCY_BUCKETS, registry: this.registry,
  });
  private readonly sends = new FastCounter({
    name: 'parley_messages_sent_total', help: 'Messages sent through the REST API, by channel and message type',
    labelNames: ['channel', 'type'], registry: this.registry,
  });
  private readonly events = new FastCounter({
    name: 'parley_events_total', help: 'Channel events processed by the event bus, by kind', labelNames: ['kind'], registry: this.registry,
  });
  private readonly eventDrops = new FastCounter({
    name: 'parley_events_dropped_total',
    help: 'Events a subscriber (storage, webhooks) left unhandled, by reason: `failed` (an error other than an outage, after 3 retries), `outage` (storage unavailable past events.outageWaitSeconds), `shutdown` (still unavailable when the shutdown grace ended), `backlog` (not queued: the instance held too many events during an outage)',
    labelNames: ['reason'], registry: this.registry,
  });
  private readonly deliveries = new FastCounter({
    name: 'parley_webhook_deliveries_total', help: 'Webhook deliveries acknowledged with 2xx, by format', labelNames: ['format'], registry: this.registry,
  });
  private readonly failures = new FastCounter({
    name: 'parley_webhook_failures_total', help: 'Failed webhook attempts (non-2xx, timeout, network error), by format',
    labelNames: ['format'], registry: this.registry,
  });
  private readonly attempts = new FastHistogram({
    name: 'parley_webhook_attempt_duration_seconds', help: 'Webhook delivery attempts by format and outcome, with their duration',
    labelNames: ['format', 'outcome'], buckets: LATENCY_BUCKETS, registry: this.registry,
  });
  private readonly pending = new Gauge({
    name: 'parley_webhook_deliveries_pending', help: 'Deliveries queued and not yet acknowledged or dead-lettered (the durable queue)',
    registers: [this.registry],
  });
  private readonly sinkPending = new Gauge({
    name: 'parley_sink_events_pending', help: 'Events queued for an event sink and not yet confirmed by its broker or dead-lettered, by sink',
    labelNames: ['sink'], registers: [this.registry],
  });
  private readonly instances = new Gauge({
    name: 'parley_instances', help: 'Instances by main channel and connection state (`unloaded`: not in memory)',
    labelNames: ['channel', 'state'], registers: [this.registry],
  });
  /** The storage decorator's histogram (see timed-storage.ts). */
  readonly storage = new FastHistogram({
    name: 'parley_storage_operation_duration_seconds', help: 'Storage repository calls by repository and operation, with their duration',
    labelNames: ['repository', 'operation'], buckets: STORAGE_BUCKETS, registry: this.registry,
  });
  private readonly streamsOpen = new Gauge({
    name: 'parley_event_streams_open', help: 'Open event streams (SSE and WebSocket, instance and admin)', registers: [this.registry],
  });
  private readonly streamDrops = new FastCounter({
    name: 'parley_event_stream_drops_total', help: 'Event stream clients cut off: `slow` (unread bytes over streams.bufferBytes), `stalled` (a replay page unread), `dead` (no pong)',
    labelNames: ['reason'], registry: this.registry,
  });
  private readonly streamRefusals = new FastCounter({
    name: 'parley_event_stream_refusals_total', help: 'Event streams refused by a concurrency limit (`instance` or `total`)',
    labelNames: ['limit'], registry: this.registry,
  });
  private sources?: MetricsSources;
  /** Started now, not at the first scrape: the event-loop lag has samples by then (NaN without). */
  private readonly process = processMetrics();

  /** Content type of {@link text} (Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Where scrapes read the instance and queue gauges (set once storage and registry exist). */
  bind(sources: MetricsSources): void {
    this.sources = sources;
  }

  /**
   * Adds the `parley_cluster_*` metrics (called once, on a cluster node only), their gauges read from
   * `gauges` at each scrape, and answers what the node's parts report them to.
   */
  cluster(gauges: ClusterGauges): ClusterObserver {
    return new ClusterMetrics(this.registry, gauges);
  }

  /** One HTTP request ended. `route` is the matched template or {@link UNMATCHED_ROUTE}. */
  request(method: string, route: string, status: number, seconds: number): void {
    this.http.series(method, route, status).observe(seconds);
  }

  /** A message was sent on `channel` (`whatsapp`, `instagram`, …) as `type` (`text`, `image`, …). */
  sent(channel: string, type: string): void {
    this.sends.series(channel, type).inc();
  }

  /** An event went through the bus (an {@link EventBus.tap} listener). */
  readonly event = (event: ChannelEvent): void => {
    this.events.series(event.type).inc();
  };

  /** {@link EventBusObserver}: events were given up. */
  eventsDropped(reason: EventDropReason, count: number): void {
    this.eventDrops.series(reason).inc(count);
  }

  /** {@link DeliveryObserver}: a webhook attempt ended. */
  attempted(format: string, outcome: AttemptOutcome, seconds: number): void {
    (outcome === 'delivered' ? this.deliveries : this.failures).series(format).inc();
    this.attempts.series(format, outcome).observe(seconds);
  }

  /** {@link StreamObserver}: a stream client was cut off. */
  streamDropped(reason: DropReason): void {
    this.streamDrops.series(reason).inc();
  }

  /** {@link StreamObserver}: a stream was refused by a concurrency limit. */
  streamRefused(limit: 'instance' | 'total'): void {
    this.streamRefusals.series(limit).inc();
  }

  /** The scrape: every metric in the Prometheus text format, gauges read from storage now. */
  async text(): Promise<string> {
    if (this.sources) await this.readGauges(this.sources);
    return Registry.merge([this.process, this.registry]).metrics();
  }

  private async readGauges({ storage, loaded, streams }: MetricsSources): Promise<void> {
    this.streamsOpen.set(streams());
    const records: InstanceRecord[] = await storage.instances.list();
    const live = new Map(loaded().map((runtime) => [runtime.id, runtime]));
    const stats = await Promise.all(records.map((r) => storage.deliveries.stats(r.id)));
    this.instances.reset();
    for (const record of records) {
      this.instances.labels(record.driver, live.get(record.id)?.connection().status ?? 'unloaded').inc();
    }
    this.pending.set(stats.reduce((sum, s) => sum + s.totalPending, 0));
    const sinks = records.flatMap((r) => Object.keys(r.sinks ?? {}).map((sink) => ({ sink, partition: sinkPartition(r.id, sink) })));
    const sinkStats = await Promise.all(sinks.map(({ partition }) => storage.deliveries.stats(partition)));
    this.sinkPending.reset();
    sinks.forEach(({ sink }, i) => this.sinkPending.labels(sink).inc(sinkStats[i]!.totalPending));
  }
}
