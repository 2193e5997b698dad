import { probeStorageHealth, systemClock, type Clock, type Logger, type RateLimitOptions, type Storage, type StorageHealth } from '@parley/core';
import { PgClusterStore } from './cluster/pg-cluster-store.js';
import { PgRateLimiter } from './cluster/pg-rate-limiter.js';
import { PgSignals } from './cluster/pg-signals.js';
import { PgDatabase } from './pg-database.js';
import { resolvePostgresOptions, type PostgresStorageOptions, type ResolvedPostgresOptions } from './postgres.options.js';
import { PgAuthStateRepository } from './repositories/auth-state.pg.js';
import { PgDeliveryQueue } from './repositories/delivery-queue.pg.js';
import { PgEventLog } from './repositories/event-log.pg.js';
import { PgIdempotencyStore } from './repositories/idempotency.pg.js';
import { PgInstanceRepository } from './repositories/instances.pg.js';
import { PgMediaRepository } from './repositories/media.pg.js';
import { PgMessageRepository } from './repositories/messages.pg.js';
import { PgOutboundQueue } from './repositories/outbound-queue.pg.js';
import { PgChatRepository, PgContactRepository } from './repositories/resources.pg.js';
import { PgStateRepository } from './repositories/state.pg.js';

/** How often the retention sweep runs, and how many messages one of its statements deletes at most. */
const RETENTION_SWEEP_MS = 60_000;
const RETENTION_BATCH = 5_000;
/** Batches of one sweep at most, so that a first sweep over a large history does not hold a connection for long. */
const RETENTION_BATCHES = 20;

/**
 * Parley's storage on PostgreSQL (12 or later). `init` opens a bounded connection pool and migrates the
 * schema. Every write is committed when its promise resolves, except with the `groupCommit` option: then
 * messages, chats, contacts, media, event-log rows, unfenced state and auth state share a group commit per
 * event-loop turn (see GroupCommit), while queue operations, instances, idempotency keys, fenced writes and
 * the cluster's still commit per call. Without it those writes commit on a pool of their own without
 * waiting for their WAL flush (PgDatabase.writes), and an event-log append alone is written behind
 * (WriteBehind). `flush` waits for the group commit, for the appends behind, and for the WAL flush of
 * commits that did not wait for theirs.
 * Operations that cannot reach PostgreSQL within `commandTimeoutMs` throw ServiceUnavailableError; the
 * pool replaces broken connections by itself.
 */
export class PostgresStorage implements Storage {
  readonly name = 'postgres';
  readonly instances: PgInstanceRepository;
  readonly messages: PgMessageRepository;
  readonly chats: PgChatRepository;
  readonly contacts: PgContactRepository;
  readonly media: PgMediaRepository;
  readonly authState: PgAuthStateRepository;
  readonly state: PgStateRepository;
  readonly deliveries: PgDeliveryQueue;
  readonly events: PgEventLog;
  readonly outbound: PgOutboundQueue;
  readonly idempotency: PgIdempotencyStore;
  readonly options: ResolvedPostgresOptions;
  private readonly db: PgDatabase;
  private readonly clusterStore: PgClusterStore;
  private signalsOf?: PgSignals;
  private retentionTimer: NodeJS.Timeout | undefined;

  /** `clock` dates dead letters, redeliveries and the retention cut-off (the plugin passes the server's). */
  constructor(options: PostgresStorageOptions = {}, private readonly logger?: Logger, private readonly clock: Clock = systemClock) {
    this.options = resolvePostgresOptions(options);
    const { url, schema, poolSize, synchronousCommit, groupCommit, commandTimeoutMs } = this.options;
    this.db = new PgDatabase({ url, schema, poolSize, synchronousCommit, groupCommit, timeoutMs: commandTimeoutMs, logger });
    this.instances = new PgInstanceRepository(this.db);
    this.messages = new PgMessageRepository(this.db);
    this.chats = new PgChatRepository(this.db);
    this.contacts = new PgContactRepository(this.db);
    this.media = new PgMediaRepository(this.db);
    this.authState = new PgAuthStateRepository(this.db);
    this.state = new PgStateRepository(this.db);
    this.events = new PgEventLog(this.db);
    this.deliveries = new PgDeliveryQueue(this.db, this.events, clock);
    this.outbound = new PgOutboundQueue(this.db);
    this.idempotency = new PgIdempotencyStore(this.db);
    this.clusterStore = new PgClusterStore(this.db);
  }

  async init(): Promise<void> {
    const schemaVersion = await this.db.open();
    this.logger?.info({ schema: this.options.schema, schemaVersion, poolSize: this.options.poolSize }, 'postgres storage open');
    if (this.options.messageRetentionDays > 0 && !this.retentionTimer) {
      this.retentionTimer = setInterval(() => void this.sweepRetention(), RETENTION_SWEEP_MS);
      this.retentionTimer.unref();
      void this.sweepRetention();
    }
  }

  async health(): Promise<StorageHealth> {
    if (!this.db.isOpen) return { ready: false, detail: 'not connected' };
    return probeStorageHealth(() => this.db.get('SELECT 1 AS ok'));
  }

  /** Cluster coordination in this database's schema (docs/cluster.md): every node of a cluster uses the same url and schema. */
  cluster(): PgClusterStore {
    return this.clusterStore;
  }

  /** Signals among the servers on this database and schema (LISTEN/NOTIFY on a connection of their own, opened at the first subscription). */
  signals(): PgSignals {
    const { url, schema, commandTimeoutMs } = this.options;
    this.signalsOf ??= new PgSignals(this.db, { url, schema, timeoutMs: commandTimeoutMs, logger: this.logger });
    return this.signalsOf;
  }

  /** Rate-limit counters every server on this database and schema shares (see {@link PgRateLimiter}). */
  rateLimiter(options: RateLimitOptions): PgRateLimiter {
    return new PgRateLimiter(this.db, options);
  }

  /** Resolves when the group commit of the writes made before the call is committed, and every commit is on disk. */
  flush(): Promise<void> {
    return this.db.flush();
  }

  /** `listener` is told (synchronously, before the flushes waiting for it reject) whenever a group commit is discarded. */
  onDiscard(listener: () => void): void {
    this.db.onDiscard(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.retentionTimer);
    this.retentionTimer = undefined;
    await this.signalsOf?.close();
    this.signalsOf = undefined;
    await this.db.close();
  }

  /**
   * Deletes messages older than the retention (by `messageTimestamp`, in seconds) in bounded batches on
   * the `messages_by_time` index. A failure (PostgreSQL unreachable) is logged; the next sweep retries.
   */
  async sweepRetention(): Promise<number> {
    const before = Math.floor(this.clock.now() / 1000) - this.options.messageRetentionDays * 86_400;
    let deleted = 0;
    try {
      for (let batch = 0; batch < RETENTION_BATCHES; batch++) {
        const n = await this.messages.purgeOlderThan(before, RETENTION_BATCH);
        deleted += n;
        if (n < RETENTION_BATCH) break;
      }
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message }, 'postgres message retention sweep failed');
    }
    return deleted;
  }
}
