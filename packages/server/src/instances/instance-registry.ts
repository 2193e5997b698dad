import {
  LinkedAccountIndex, newUlid, ownMember, ValidationError, type ChannelAdapter, type ChannelDriver, type ChannelEventPayload, type ChannelName, type Clock,
  type InstanceRecord, type Logger, type SocialLink, type Storage, type UniqueClaim,
} from '@parley/core';
import { InstanceRuntime, instanceNotFound } from './instance-runtime.js';

/** Where the adapters' event payloads go: the event bus built over this registry. */
export interface EventSink {
  publish(instanceId: string, provider: ChannelName, payload: ChannelEventPayload): void;
  /** Runs `task` after everything published for the instance so far was handled (stored, queued). */
  run(instanceId: string, task: () => Promise<void>): Promise<void>;
  /** Resolves once everything published for the instance so far was handled, holding back nothing published later. */
  processed(instanceId: string): Promise<void>;
}

/**
 * Where instances may run, on a cluster node (absent on a single server, which runs them all): an
 * instance is loaded only once this node owns it, and its adapters write through a fenced storage.
 */
export interface InstancePlacement {
  /** Resolves once this node owns the instance (taking its lease when free); throws 503 `instance_moving` otherwise. */
  claim(id: string): Promise<void>;
  /** The storage the instance's adapters use. */
  storageFor(id: string, base: Storage): Storage;
}

/**
 * Keeps the loaded instances of this process: records cached in memory (every change goes through
 * {@link InstanceRegistry.update}, which writes storage first), and one adapter per channel.
 */
export class InstanceRegistry {
  private readonly byId = new Map<string, InstanceRuntime>();
  private readonly idByKey = new Map<string, string>();
  private readonly loading = new Map<string, Promise<InstanceRuntime>>();
  /** Which instance links each social account: kept current by {@link link}, {@link unlink} and {@link forgetLinks}. */
  readonly linkedAccounts: LinkedAccountIndex;
  private sink?: EventSink;

  constructor(
    private readonly storage: Storage,
    private readonly drivers: Map<string, ChannelDriver>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly placement?: InstancePlacement,
  ) {
    this.linkedAccounts = new LinkedAccountIndex(storage.state, storage.instances);
  }

  /** Called once by the event bus built over this registry: adapters' payloads go there. */
  publishTo(sink: EventSink): void {
    if (this.sink) throw new Error('the registry already publishes to an event bus');
    this.sink = sink;
  }

  /** The driver claiming a channel name, or a ValidationError naming `field`. */
  driver(name: string, field = 'channel'): ChannelDriver {
    const driver = this.drivers.get(name);
    if (!driver) throw new ValidationError(`${field} "${name}" is not available; configured channels: ${[...this.drivers.keys()].join(', ')}`);
    return driver;
  }

  /** Main-channel driver names. */
  mainChannels(): string[] {
    return [...this.drivers.values()].filter((d) => d.role === 'main').map((d) => d.name);
  }

  /** The instance behind a secret key (404 `instance_not_found`). */
  async byKey(key: string): Promise<InstanceRuntime> {
    const cached = this.idByKey.get(key);
    if (cached) return this.byIdOrThrow(cached);
    const record = await this.storage.instances.findByKey(key);
    if (!record) throw instanceNotFound();
    return this.load(record);
  }

  /** The instance with a public id (404 `instance_not_found`). */
  byIdOrThrow(id: string): Promise<InstanceRuntime> {
    return this.byIdWhere(id, () => true);
  }

  /**
   * The instance with a public id when `accepts` its record; otherwise 404 `instance_not_found`, as
   * for an unknown id, and nothing is loaded (a public route of one driver must not start another's).
   */
  async byIdWhere(id: string, accepts: (record: InstanceRecord) => boolean): Promise<InstanceRuntime> {
    const record = this.byId.get(id)?.record ?? await this.storage.instances.get(id);
    if (!record || !accepts(record)) throw instanceNotFound();
    return this.load(record);
  }

  /** Loads an instance's adapters once (concurrent callers share the load). */
  load(record: InstanceRecord): Promise<InstanceRuntime> {
    const existing = this.byId.get(record.id);
    if (existing) return Promise.resolve(existing);
    let pending = this.loading.get(record.id);
    if (!pending) {
      pending = this.createRuntime(record).finally(() => this.loading.delete(record.id));
      this.loading.set(record.id, pending);
    }
    return pending;
  }

  private async createRuntime(record: InstanceRecord): Promise<InstanceRuntime> {
    await this.placement?.claim(record.id);
    const mainDriver = this.driver(record.driver, 'driver');
    const main = await this.createAdapter(record, mainDriver);
    const runtime = new InstanceRuntime(record, main, mainDriver.addressing);
    for (const channel of Object.keys(record.links)) {
      const driver = this.drivers.get(channel);
      if (driver) runtime.social.set(channel, await this.createAdapter(record, driver));
      else this.logger.warn({ instance: record.id, channel }, 'linked channel has no driver configured; link ignored');
    }
    this.byId.set(record.id, runtime);
    this.idByKey.set(record.key, record.id);
    return runtime;
  }

  private async createAdapter(record: InstanceRecord, driver: ChannelDriver): Promise<ChannelAdapter> {
    const id = record.id;
    let adapter: ChannelAdapter | undefined;
    adapter = await driver.create({
      instanceId: id,
      instance: async () => this.byId.get(id)?.record ?? (await this.storage.instances.get(id)) ?? record,
      emit: (payload: ChannelEventPayload) => this.sink!.publish(id, adapter?.channel ?? driver.channel, payload),
      settled: () => this.sink!.processed(id),
      inOrder: (task) => this.sink!.run(id, task),
      storage: this.placement?.storageFor(id, this.storage) ?? this.storage,
      logger: this.logger.child({ instance: id, channel: driver.name }),
    });
    return adapter;
  }

  /** Writes a change to storage, then to the cached record. */
  async update(id: string, patch: Partial<Omit<InstanceRecord, 'id'>>): Promise<InstanceRecord> {
    const record = await this.storage.instances.update(id, patch);
    const runtime = this.byId.get(id);
    if (runtime) runtime.record = record;
    return record;
  }

  /** Creates an instance record with the values it holds exclusively (one atomic write) and loads it. */
  async create(record: Omit<InstanceRecord, 'id' | 'createdAt'> & { id?: string }, claims: readonly UniqueClaim[] = []): Promise<InstanceRuntime> {
    const now = this.clock.now();
    const full: InstanceRecord = { ...record, id: record.id ?? `ins_${newUlid(now).toLowerCase()}`, createdAt: now };
    await this.storage.instances.create(full, claims);
    return this.load(full);
  }

  /** Links a social channel: stores the link and starts its adapter. */
  async link(id: string, channel: ChannelName, link: SocialLink): Promise<InstanceRecord> {
    const runtime = await this.byIdOrThrow(id);
    const previousLink = ownMember(runtime.record.links, channel);
    const record = await this.update(id, { links: { ...runtime.record.links, [channel]: link } });
    if (previousLink) await this.linkedAccounts.remove(id, previousLink);
    await this.linkedAccounts.add(id, link);
    const previous = runtime.social.get(channel);
    if (previous) await previous.stop();
    runtime.social.set(channel, await this.createAdapter(record, this.driver(channel)));
    return record;
  }

  /** Unlinks a social channel. */
  async unlink(id: string, channel: ChannelName): Promise<InstanceRecord> {
    const runtime = await this.byIdOrThrow(id);
    const links = { ...runtime.record.links };
    const dropped = ownMember(links, channel);
    delete links[channel];
    const record = await this.update(id, { links });
    if (dropped) await this.linkedAccounts.remove(id, dropped);
    await runtime.social.get(channel)?.stop();
    runtime.social.delete(channel);
    return record;
  }

  /** Drops a deleted instance's links from the index of linked accounts. */
  async forgetLinks(record: InstanceRecord): Promise<void> {
    for (const link of Object.values(record.links)) if (link) await this.linkedAccounts.remove(record.id, link);
  }

  /** Stops an instance's adapters and forgets it (the record stays unless the caller deletes it). */
  async unload(id: string): Promise<void> {
    // A load in flight finishes first: otherwise it would leave a running instance behind.
    await this.loading.get(id)?.catch(() => undefined);
    const runtime = this.byId.get(id);
    if (!runtime) return;
    this.byId.delete(id);
    this.idByKey.delete(runtime.record.key);
    await Promise.allSettled(runtime.adapters().map((a) => a.stop()));
  }

  /**
   * Stops an instance this process hands to another (a cluster node giving it up): its adapters stop
   * first, then everything they emitted is stored and queued while the instance is still known here,
   * and only then is it forgotten — no event of the last moments is dropped.
   */
  async handOver(id: string): Promise<void> {
    await this.loading.get(id)?.catch(() => undefined);
    const runtime = this.byId.get(id);
    if (!runtime) return;
    await Promise.allSettled(runtime.adapters().map((a) => a.stop()));
    await this.sink?.run(id, async () => undefined).catch(() => undefined);
    if (this.byId.get(id) !== runtime) return;
    this.byId.delete(id);
    this.idByKey.delete(runtime.record.key);
  }

  /** Loaded instances. */
  loaded(): InstanceRuntime[] {
    return [...this.byId.values()];
  }

  /** Stops every adapter (shutdown); then {@link closeDrivers}. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.byId.keys()].map((id) => this.unload(id)));
  }

  /** Closes every driver (shutdown, after {@link close}, before storage closes); `shutdown` aborts when the stop's time is spent. */
  async closeDrivers(shutdown: AbortSignal): Promise<void> {
    await Promise.allSettled([...this.drivers.values()].map((d) => d.close?.(shutdown)));
  }
}
