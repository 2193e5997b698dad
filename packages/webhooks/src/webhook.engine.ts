import { loggedEventOf, ValidationError } from '@parley/core';
import type {
  ChannelDirectory, ChannelEvent, Clock, DeadLetter, Delivery, HostSettings, InstanceRecord, LoggedEvent, Logger, NewDelivery, Page, Sink, Storage,
  WebhookFormat, WebhookRenderContext, WebhookSettings, WebhookStats,
} from '@parley/core';
import { isAllowedNumber, parseAllowNumber } from './allow-number.js';
import { deliveryId } from './delivery-id.js';
import type { DeliveryObserver } from './delivery-observer.js';
import { DeliveryWorker } from './delivery-worker.js';
import { scheduleHousekeeping } from './housekeeping.js';
import { HttpSender } from './http-sender.js';
import { RetryPolicy } from './retry-policy.js';
import { redeliverToCurrent, type CurrentRedelivery } from './redeliver-current.js';
import { formatNames, routeUrl } from './routing.js';
import { validateWebhookSettings } from './settings-validation.js';
import { SinkRouter } from './sink-router.js';
import { isSinkTarget, sinkTarget } from './sink-target.js';
import { SinkTransport } from './sink-transport.js';
import { WebhookTransport } from './webhook-transport.js';
import { resolveWebhookOptions, type WebhookOptions, type WebhookOptionsInput } from './webhook-options.js';

/** How {@link WebhookEngine.persist} reads a write that was durable when it resolved (a back end without group commit). */
const DURABLE = { durable: Promise.resolve() };

/** Everything the engine needs, given explicitly (the server resolves them from its container). */
export interface WebhookEngineDeps {
  storage: Storage;
  formats: WebhookFormat[];
  /** Event sinks (plugins): fed from the same outbox, by the same worker, on the same retry schedule. */
  sinks?: Sink[];
  logger: Logger;
  clock: Clock;
  host: HostSettings;
  /** The registered channels: the instance's main channel for formats, and which channels `allowNumber` filters. */
  channels: ChannelDirectory;
  /** Options; missing members take their defaults (`resolveWebhookOptions`, which throws ValidationError). */
  options?: WebhookOptionsInput;
  /**
   * Download address of a message's media in payloads. The default is the REST media endpoint (spec
   * 4.4) under `host.publicUrl` with a literal `{key}` placeholder: the instance key is a secret and
   * never goes into a payload, so receivers substitute their own.
   */
  mediaUrl?: (instance: Readonly<InstanceRecord>, messageId: string) => string;
  /** Source of retry jitter in [0, 1) (tests pin it). */
  random?: () => number;
  /** Told of each delivery attempt's outcome and duration (the server's metrics). */
  observer?: DeliveryObserver;
  /**
   * Also log every handled event in the storage's event log, in the same atomic write as its
   * deliveries (`DeliveryQueue.enqueue` with `events`): an event is logged exactly when its deliveries
   * are queued, so a channel replaying what a crash cut off can tell from the log whether to emit an
   * event again. The server sets it; the log is what its live event streams replay.
   */
  logEvents?: boolean;
}

/**
 * Parley's webhook engine: routes each channel event by the instance's settings (spec 2.2) and to the
 * event sinks it enabled, renders it in the selected formats, enqueues the bodies durably in one outbox
 * and delivers them — signed HTTP POSTs, broker publishes — with retries, dead letters and exact
 * statistics.
 */
export class WebhookEngine {
  /** Names the engine among the server's event-bus subscribers (logs of failed handling). */
  readonly name = 'webhooks';
  private readonly formats: ReadonlyMap<string, WebhookFormat>;
  private readonly options: WebhookOptions;
  private readonly logger: Logger;
  private readonly worker: DeliveryWorker;
  private readonly sender: HttpSender;
  private readonly sinkList: Sink[];
  /** The per-instance sink settings, statistics and dead letters (`/{key}/instance/sinks`). */
  readonly sinks: SinkRouter;
  private stopHousekeeping: (() => Promise<void>) | null = null;
  /** `host.publicUrl` without trailing slashes: the base of media addresses in payloads. */
  private readonly publicBase: string;
  /** Deliveries and event-log entries handed over in the current tick, written together by {@link persist}. */
  private batch: NewDelivery[] = [];
  private logBatch: LoggedEvent[] = [];
  /** The events of {@link batch} with deliveries: marked queued, and the worker woken, once the batch is durable. */
  private routed: ChannelEvent[] = [];
  private flushing: Promise<void> | null = null;
  /** Events whose deliveries (and log entry) are durably queued: handled again, they are not queued twice. */
  private readonly queued = new WeakSet<ChannelEvent>();
  /** The writes under way: {@link written} waits for them. */
  private readonly writing = new Set<Promise<void>>();

  constructor(private readonly deps: WebhookEngineDeps) {
    this.formats = new Map(deps.formats.map((format) => [format.name, format]));
    this.publicBase = deps.host.publicUrl.replace(/\/+$/, '');
    this.logger = deps.logger.child({ component: 'webhooks' });
    const options = (this.options = resolveWebhookOptions(deps.options));
    this.sender = new HttpSender(deps.host.allowPrivateUrls, options.userAgent, options.concurrency);
    this.sinkList = deps.sinks ?? [];
    const sinks = new Map(this.sinkList.map((sink) => [sink.name, sink]));
    this.sinks = new SinkRouter({ storage: deps.storage, sinks, formats: new Set(this.formats.keys()), wake: () => this.worker.wake() });
    const webhook = new WebhookTransport({
      storage: deps.storage, formats: this.formats, sender: this.sender, clock: deps.clock, timeoutMs: options.timeoutMs,
      ...(deps.observer ? { observer: deps.observer } : {}),
    });
    const sink = new SinkTransport(sinks);
    this.worker = new DeliveryWorker({
      storage: deps.storage, transportFor: (delivery: Delivery) => (isSinkTarget(delivery.url) ? sink : webhook),
      policy: new RetryPolicy(options.retry, deps.random), clock: deps.clock, logger: this.logger, options,
    });
    for (const one of this.sinkList) one.onReconnect?.(() => void this.resume(one.name));
  }

  /**
   * Routes, renders and enqueues one event, for the webhooks and the sinks of its instance (and logs
   * it, with `logEvents`). Resolves once the deliveries and the log entry are written: with a back end
   * that commits writes in groups (`DeliveryQueue.enqueueInBatch`, SQLite) before that group's commit,
   * so they share it with the other writes of the caller's run — the server's event bus awaits
   * `Storage.flush` before an event is over, and handles it again when the commit was discarded; with
   * any other back end once they are durable. Delivery happens in the background, once they are
   * durable. A failed write is the caller's to retry (a storage outage is waited out). Without
   * `logEvents` an event routed nowhere resolves at once. An event whose deliveries are durably queued
   * is not queued again when the bus handles it again — a delivery sent and removed since would be
   * sent twice; one whose write was discarded is.
   */
  async handle(event: ChannelEvent, instance: InstanceRecord): Promise<void> {
    if (this.queued.has(event)) return;
    let context: WebhookRenderContext | undefined;
    const rendered = new Map<string, string | null>();
    const render = (format: string): string | null => {
      if (!rendered.has(format)) rendered.set(format, this.render(format, event, (context ??= this.renderContext(instance))));
      return rendered.get(format)!;
    };
    const createdAt = this.deps.clock.now();
    const deliveries = this.webhookDeliveries(event, instance, createdAt, render);
    for (const delivery of this.sinks.deliveries(event, instance, createdAt, render)) deliveries.push(delivery);
    if (this.deps.logEvents) this.logBatch.push(loggedEventOf(event));
    else if (deliveries.length === 0) return;
    await this.persist(event, deliveries);
  }

  private webhookDeliveries(event: ChannelEvent, instance: InstanceRecord, createdAt: number, render: (format: string) => string | null): NewDelivery[] {
    const settings = instance.webhook;
    if (!settings.allowWebhook || !this.passesAllowNumber(event, settings)) return [];
    const url = routeUrl(event, settings);
    if (!url) return [];
    const deliveries: NewDelivery[] = [];
    for (const name of formatNames(settings.webhookFormat)) {
      const body = render(name);
      if (body === null) continue;
      deliveries.push({
        id: deliveryId(event.id, name, url), instance: instance.id, url, format: name, eventId: event.id, eventType: event.type, body, createdAt,
      });
    }
    return deliveries;
  }

  /**
   * A run of consecutive events of one instance, as {@link handle} one after another: each is routed
   * and rendered in order before any is written, so their deliveries go to storage in one `enqueue`,
   * in event order. Resolves once all are persisted.
   */
  async handleBatch(events: readonly ChannelEvent[], instance: InstanceRecord): Promise<void> {
    await Promise.all(events.map((event) => this.handle(event, instance)));
  }

  /**
   * Group commit: deliveries (and log entries) handed over together — by events of several instances
   * whose handling resumed in the same tick, as after the previous batch was written — go to storage
   * in one `enqueue` call (one transaction). The batch is written one microtask after its first
   * delivery, so a lone event waits for nothing. Each caller resolves only once its own deliveries and
   * log entry are written, with `durable`, settled when they are durable (or discarded). A lane's events
   * never share a batch out of order: the bus hands an instance's next event over only after the
   * previous one resolved.
   */
  private persist(event: ChannelEvent, deliveries: readonly NewDelivery[]): Promise<void> {
    for (const delivery of deliveries) this.batch.push(delivery);
    if (deliveries.length > 0) this.routed.push(event);
    if (this.flushing) return this.flushing;
    const write = (this.flushing = Promise.resolve().then(async () => {
      const { batch, logBatch, routed } = this;
      this.batch = [];
      this.logBatch = [];
      this.routed = [];
      this.flushing = null;
      const queue = this.deps.storage.deliveries;
      const { durable } = await (queue.enqueueInBatch ? queue.enqueueInBatch(batch, logBatch) : queue.enqueue(batch, logBatch).then(() => DURABLE));
      if (routed.length === 0) return;
      // A write discarded (its group commit rolled back) leaves its events unmarked: handled again, they are queued again.
      void durable.then(() => {
        for (const one of routed) this.queued.add(one);
        this.worker.wake();
      }, () => undefined);
    }));
    // Every caller gets a failure: the bus handles their events again, deliveries and entries alike.
    const settled = write.then(() => undefined, () => undefined);
    this.writing.add(settled);
    void settled.then(() => this.writing.delete(settled));
    return write;
  }

  /**
   * Resolves once every write of what was handed over so far is over (written, or failed: the caller
   * that handed it over got the error); written in a group of writes (`enqueueInBatch`) it is durable
   * at the next `Storage.flush`. Never rejects. The server awaits it, then the flush, before an event is
   * over, before closing storage and before ending the streams of an instance that moved away.
   */
  async written(): Promise<void> {
    await Promise.all([...this.writing]);
  }

  /**
   * The body of `event` in format `name` for `instance`, as JSON text: exactly what a webhook of that
   * format receives. Null when the format does not carry the event or is not installed. The live
   * event streams send it.
   */
  renderBody(name: string, event: ChannelEvent, instance: InstanceRecord): string | null {
    return this.render(name, event, this.renderContext(instance));
  }

  /** Spec 2.3 statistics of an instance. */
  stats(instanceId: string): Promise<WebhookStats> {
    return this.deps.storage.deliveries.stats(instanceId);
  }

  /** Dead letters of an instance, oldest dead first, with their total. */
  deadLetters(instanceId: string, page: { limit: number; offset: number }): Promise<Page<DeadLetter>> {
    return this.deps.storage.deliveries.deadLetters(instanceId, page);
  }

  /** Queues dead letters again (all of the instance when `ids` is omitted), due now. Answers how many. */
  async redeliver(instanceId: string, ids?: string[]): Promise<number> {
    const count = await this.deps.storage.deliveries.redeliver(instanceId, ids);
    if (count > 0) this.worker.wake();
    return count;
  }

  /**
   * Queues dead letters again for the instance's settings as they are now (its URL, formats and
   * switches; see {@link redeliverToCurrent}), instead of the URL and format they were rendered for.
   */
  async redeliverToCurrent(instance: InstanceRecord, ids?: string[]): Promise<CurrentRedelivery> {
    const route = (event: ChannelEvent, record: InstanceRecord) => {
      const context = this.renderContext(record);
      return this.webhookDeliveries(event, record, this.deps.clock.now(), (format) => this.render(format, event, context));
    };
    const result = await redeliverToCurrent({ storage: this.deps.storage, now: this.deps.clock.now(), route }, instance, ids);
    if (result.redelivered > 0) this.worker.wake();
    return result;
  }

  /**
   * Validates a settings patch (PUT instance). Throws ValidationError naming the field as the
   * settings spell it, or under `root` when given (the API names fields from its body: `body.webhook`).
   */
  async validateSettings(patch: Partial<WebhookSettings>, root?: string): Promise<void> {
    try {
      await validateWebhookSettings(patch, new Set(this.formats.keys()), this.deps.host.allowPrivateUrls);
    } catch (err) {
      throw root !== undefined && err instanceof ValidationError ? new ValidationError(`${root}.${err.message}`, err.details) : err;
    }
  }

  /** Forgets an instance's queued deliveries and dead letters, its sinks' too (instance deletion). */
  async forget(instance: Pick<InstanceRecord, 'id' | 'sinks'>): Promise<void> {
    await Promise.all([this.deps.storage.deliveries.clear(instance.id), this.sinks.forget(instance)]);
  }

  /** Deletes dead letters older than the retention. Answers how many (the dead-letter expiry job). */
  async purgeExpiredDeadLetters(): Promise<number> {
    const count = await this.deps.storage.deliveries.purgeDeadLetters(this.deps.clock.now() - this.options.housekeeping.deadLetterRetentionMs);
    if (count > 0) this.logger.info({ count }, 'expired webhook dead letters deleted');
    return count;
  }

  /**
   * Starts the delivery worker and the housekeeping jobs, and connects the sinks in the background: a
   * sink whose broker cannot be reached is logged and reported not ready (`sinks.health()`), its events
   * stay queued, it reconnects in the background and they go out once it is back. Idempotent.
   */
  start(): void {
    if (this.stopHousekeeping) return;
    for (const sink of this.sinkList) {
      sink.start().then(
        () => this.logger.info({ sink: sink.name }, 'event sink connected'),
        (err: unknown) => this.logger.error({ sink: sink.name, error: (err as Error).message }, 'event sink unavailable at start-up: its events stay queued until it connects'),
      );
    }
    this.stopHousekeeping = scheduleHousekeeping(this.options.housekeeping, {
      sweep: () => this.worker.wake(),
      purge: () => this.purgeExpiredDeadLetters(),
    }, this.logger);
    this.worker.start();
  }

  /**
   * A sink connected (again): its postponed deliveries are made due now, without counting an attempt,
   * and the worker wakes, so what waited for the broker goes out at once, in order per lane.
   */
  private async resume(name: string): Promise<void> {
    this.worker.resumed(sinkTarget(name));
    try {
      const count = await this.sinks.expedite(name, this.deps.clock.now());
      if (count > 0) this.logger.info({ sink: name, lanes: count }, 'event sink reconnected: its waiting deliveries go out now');
    } catch (err) {
      this.logger.warn({ sink: name, err }, 'event sink reconnected, but its waiting deliveries could not be made due; they go out at their retry time');
    }
  }

  /** Stops claiming, lets in-flight attempts finish (bounded by `stopTimeoutMs`) and closes connections. */
  async stop(): Promise<void> {
    const stopHousekeeping = this.stopHousekeeping;
    if (!stopHousekeeping) return;
    this.stopHousekeeping = null;
    await stopHousekeeping();
    await this.worker.stop();
    this.sender.destroy();
    await Promise.all(this.sinkList.map((sink) => sink.stop().catch((err: unknown) => this.logger.warn({ sink: sink.name, err }, 'event sink did not close cleanly'))));
  }

  private passesAllowNumber(event: ChannelEvent, settings: WebhookSettings): boolean {
    try {
      return isAllowedNumber(event, parseAllowNumber(settings.allowNumber), this.deps.channels);
    } catch {
      // Settings are validated on write; an unreadable filter forwards nothing rather than everything.
      this.logger.warn({ instance: event.instance }, 'allowNumber is invalid: event not forwarded');
      return false;
    }
  }

  private renderContext(instance: InstanceRecord): WebhookRenderContext {
    const { mediaUrl } = this.deps;
    const base = this.publicBase;
    const mainChannel = this.deps.channels.mainChannel(instance);
    return {
      instance,
      ...(mainChannel === undefined ? {} : { mainChannel }),
      serviceTag: this.options.serviceTag,
      mediaUrl: mediaUrl
        ? (messageId) => mediaUrl(instance, messageId)
        : (messageId) => `${base}/{key}/message/${encodeURIComponent(messageId)}/media`,
    };
  }

  /** The JSON body in one format, or null when the format does not carry the event or is unknown. */
  private render(name: string, event: ChannelEvent, context: WebhookRenderContext): string | null {
    const format = this.formats.get(name);
    if (!format) {
      this.logger.warn({ instance: event.instance, format: name }, 'webhook format not installed: event not delivered in it');
      return null;
    }
    try {
      const body = format.render(event, context);
      return body === null ? null : format.serialize ? format.serialize(body) : JSON.stringify(body);
    } catch (error) {
      this.logger.error({ err: error, instance: event.instance, event: event.id, type: event.type, format: name }, 'webhook format failed to render');
      return null;
    }
  }
}
