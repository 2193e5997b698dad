import PQueue from 'p-queue';
import type { ChannelDriver, Clock, InstanceRecord, Logger, Storage } from '@parley/core';
import type { RestoreConfig } from '../config/restore-config.js';
import type { InstanceRegistry } from './instance-registry.js';
import { StartRate } from './start-rate.js';

/** Connections per second for a driver that declares no `restorePerSecond` and is not configured. */
export const DEFAULT_RESTORE_PER_SECOND = 10;
/** Pending-work look-ups in flight at once before a restore starts. */
const LOOKUP_CONCURRENCY = 64;
/** Longest real-time sleep of a start waiting for its rate before it reads the clock again. */
const DEFAULT_RECHECK_MS = 250;

/** What {@link InstanceRestorer.restore} did. */
export interface RestoreSummary {
  /** Instances whose channel connection was started. */
  restored: number;
  /** Instances whose connection failed (logged each). */
  failed: number;
  /** Instances not tried: the restorer was stopped first, or their record no longer wants a connection. */
  skipped: number;
}

/** What the restorer needs of the server. */
export interface RestorerDeps {
  storage: Storage;
  registry: Pick<InstanceRegistry, 'load'>;
  drivers: ReadonlyMap<string, ChannelDriver>;
  config: RestoreConfig;
  logger: Logger;
  /** The clock the rates count in (the server's injected clock). */
  clock: Clock;
  /** How long a start waiting for its rate sleeps at most before it reads the clock again (default 250 ms). */
  recheckMs?: number;
}

/**
 * Reconnects instances in bulk: after a restart, and for instances a node takes over. Three bounds
 * apply, shared by every call on one restorer:
 *
 * - at most `restore.concurrency` instances of one channel driver connect at once (drivers do not
 *   wait for each other: a slow WhatsApp restore does not hold the sandbox up);
 * - each channel driver starts at most its rate of connections in any rolling second
 *   (`restore.perSecond.<driver>`, else the driver's `restorePerSecond`, else
 *   {@link DEFAULT_RESTORE_PER_SECOND}), so WhatsApp sees no reconnect storm while the sandbox
 *   comes back at once;
 * - instances with pending work go first: the most first, then in the order given. Pending work is
 *   what waits for the instance that storage shows: webhook deliveries still queued for it, plus what
 *   its driver counts (`ChannelDriver.pendingWork`: the sandbox's inbox packets).
 *
 * Queueing is p-queue's (concurrency, priorities, abort). The rate is a {@link StartRate} on the
 * injected clock, taken by each task as it begins: the bound holds in the clock's time (a fake clock
 * in tests makes it exact), and a task waiting for its turn holds its concurrency slot, which keeps
 * starts in the queue's order.
 */
export class InstanceRestorer {
  /** One queue per driver (its concurrency bound) and its rate, both counted when a connection starts. */
  private readonly queues = new Map<string, { queue: PQueue; rate: StartRate }>();
  private readonly abort = new AbortController();

  constructor(private readonly deps: RestorerDeps) {}

  /** Connections per second for a driver's instances. */
  perSecond(driver: string): number {
    return this.deps.config.perSecond[driver] ?? this.deps.drivers.get(driver)?.restorePerSecond ?? DEFAULT_RESTORE_PER_SECOND;
  }

  /**
   * Restores the instances with these ids whose record wants a connection (unknown ids and the
   * others are skipped). Resolves once each was tried; a failure is logged and counted, never thrown.
   */
  async restore(ids: readonly string[]): Promise<RestoreSummary> {
    const records = await this.lookup(ids, (id) => this.deps.storage.instances.get(id));
    const wanted = records.filter((r): r is InstanceRecord => r?.wantsConnection === true);
    const summary = await this.restoreRecords(wanted);
    return { ...summary, skipped: summary.skipped + ids.length - wanted.length };
  }

  /** {@link restore} for records already read (start-up lists them anyway). */
  async restoreRecords(records: readonly InstanceRecord[]): Promise<RestoreSummary> {
    const summary: RestoreSummary = { restored: 0, failed: 0, skipped: 0 };
    if (!records.length) return summary;
    const pending = await this.lookup(records, (r) => this.pendingWork(r));
    const order = records.map((record, i) => ({ record, i, pending: pending[i]! }))
      .sort((a, b) => b.pending - a.pending || a.i - b.i);
    await Promise.all(order.map(async ({ record, pending: work }) => {
      const priority = work > 0 ? 1 : 0;
      try {
        await this.schedule(record.driver, (startedAt) => this.connect(record, work, startedAt, summary), priority);
      } catch {
        // Aborted by stop() before its turn.
        summary.skipped++;
      }
    }));
    return summary;
  }

  /**
   * Runs `task` (which connects one instance of `driver`) under the same per-driver concurrency bound
   * and rate as {@link restore}: a cluster node starts the instances it takes over through it, so a
   * failover is no reconnect storm either. Rejects when {@link stop} was called before its turn.
   */
  throttle<T>(driver: string, task: () => Promise<T>): Promise<T> {
    return this.schedule(driver, () => task(), 0);
  }

  /** Stops restoring: instances still waiting for their turn are skipped (connections under way finish). */
  stop(): void {
    this.abort.abort();
  }

  /** `startedAt`: the clock time its driver's rate counted this start at (logged: the bound can be checked). */
  private async connect(record: InstanceRecord, pending: number, startedAt: number, summary: RestoreSummary): Promise<void> {
    this.deps.logger.debug({ instance: record.id, driver: record.driver, pendingWork: pending, startedAt }, 'restoring instance');
    try {
      const runtime = await this.deps.registry.load(record);
      await runtime.main.capabilities.connection?.connect();
      summary.restored++;
      this.deps.logger.debug({ instance: record.id }, 'instance restored');
    } catch (err) {
      summary.failed++;
      this.deps.logger.warn({ err, instance: record.id }, 'instance could not be restored');
    }
  }

  /** Queued webhook deliveries plus the driver's own count; 0 (logged) when storage cannot say. */
  private async pendingWork(record: InstanceRecord): Promise<number> {
    try {
      const [stats, own] = await Promise.all([
        this.deps.storage.deliveries.stats(record.id),
        this.deps.drivers.get(record.driver)?.pendingWork?.(record.id, this.deps.storage) ?? 0,
      ]);
      return stats.totalPending + own;
    } catch (err) {
      this.deps.logger.warn({ err, instance: record.id }, 'pending work of an instance could not be read; restored in the normal order');
      return 0;
    }
  }

  /**
   * Runs `task` in `driver`'s queue once its rate allows, with the clock time the rate counted it at;
   * rejects when {@link stop} comes first.
   */
  private schedule<T>(driver: string, task: (startedAt: number) => Promise<T>, priority: number): Promise<T> {
    let lane = this.queues.get(driver);
    if (!lane) {
      lane = {
        queue: new PQueue({ concurrency: this.deps.config.concurrency }),
        rate: new StartRate(this.perSecond(driver), this.deps.clock, this.deps.recheckMs ?? DEFAULT_RECHECK_MS),
      };
      this.queues.set(driver, lane);
    }
    const { queue, rate } = lane;
    const signal = this.abort.signal;
    return queue.add(async () => task(await rate.take(signal)), { priority, signal });
  }

  /** `fn` over `items`, at most {@link LOOKUP_CONCURRENCY} at once, answers in order. */
  private lookup<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
    const queue = new PQueue({ concurrency: LOOKUP_CONCURRENCY });
    return Promise.all(items.map((item) => queue.add(() => fn(item))));
  }
}
