import { ServiceUnavailableError, systemClock, type Clock, type Logger, type Storage, type StorageHealth } from '@parley/core';
import { checkIntegrity, corruptionAdvice, INTEGRITY_WAIT_MS } from './integrity-check.js';
import { SqliteAuthStateRepository } from './repositories/auth-state.repository.js';
import { SqliteDeliveryQueue } from './repositories/delivery-queue.js';
import { SqliteEventLog } from './repositories/event-log.js';
import { SqliteIdempotencyStore } from './repositories/idempotency.repository.js';
import { SqliteInstanceRepository } from './repositories/instances.repository.js';
import { SqliteMediaRepository } from './repositories/media.repository.js';
import { SqliteOutboundQueue } from './repositories/outbound-queue.js';
import { SqliteMessageRepository } from './repositories/messages.repository.js';
import { SqliteChatRepository, SqliteContactRepository } from './repositories/resources.repository.js';
import { SqliteStateRepository } from './repositories/state.repository.js';
import { SqliteDatabase } from './sqlite-database.js';

/** Options of {@link SqliteStorage}. */
export interface SqliteStorageOptions {
  /** Database file; its directory is created on `init`. */
  file: string;
  logger?: Logger;
  /** Checkpoint the WAL from a worker thread instead of inside commits (default true). */
  backgroundCheckpoints?: boolean;
  /** Dates dead letters and redeliveries (default the system clock; the plugin passes the server's). */
  clock?: Clock;
  /** Check the whole file with `PRAGMA quick_check` at `init` (default true). */
  integrityCheck?: boolean;
  /**
   * Messages per block of a chat's order (see ChatOrder; default 256, what migration 7 builds).
   * Not an operator setting: tests make it small to exercise block splits and merges.
   */
  messageBlockSize?: number;
}

/**
 * Storage in one embedded SQLite file (better-sqlite3), the default back end. Nothing touches the
 * disk before `init`, which opens the file, sets WAL and migrates the schema.
 */
export class SqliteStorage implements Storage {
  readonly name = 'sqlite';
  readonly file: string;
  /** The database file. */
  get location(): string {
    return this.file;
  }
  /** Whether a worker thread checkpoints the WAL (see SqliteDatabaseOptions). */
  readonly backgroundCheckpoints: boolean;
  readonly instances: SqliteInstanceRepository;
  readonly messages: SqliteMessageRepository;
  readonly chats: SqliteChatRepository;
  readonly contacts: SqliteContactRepository;
  readonly media: SqliteMediaRepository;
  readonly authState: SqliteAuthStateRepository;
  readonly state: SqliteStateRepository;
  readonly deliveries: SqliteDeliveryQueue;
  readonly events: SqliteEventLog;
  readonly outbound: SqliteOutboundQueue;
  readonly idempotency: SqliteIdempotencyStore;
  private readonly db: SqliteDatabase;
  private readonly logger: Logger | undefined;
  private readonly integrityCheck: boolean;

  constructor(options: SqliteStorageOptions) {
    this.file = options.file;
    this.backgroundCheckpoints = options.backgroundCheckpoints ?? true;
    this.logger = options.logger;
    this.integrityCheck = options.integrityCheck ?? true;
    this.db = new SqliteDatabase(options.file, {
      backgroundCheckpoints: this.backgroundCheckpoints,
      onCheckpointError: (message) => this.logger?.warn({ file: this.file, error: message }, 'sqlite background checkpoint failed'),
      onPermissionsTightened: (files) => this.logger?.warn({ files }, 'sqlite files were readable by other users: permissions tightened to 0600'),
      health: {
        cannotWrite: (detail) => this.logger?.error({ file: this.file, error: detail }, 'sqlite storage cannot write (disk full or failing?): writes answer 503 and /readyz is not ready until a probe write succeeds'),
        canWriteAgain: (failedForMs) => this.logger?.info({ file: this.file, failedForMs }, 'sqlite storage writes again'),
        corrupt: (detail) => this.logger?.error({ file: this.file, error: detail }, corruptionAdvice(this.file)),
      },
    });
    this.instances = new SqliteInstanceRepository(this.db);
    this.messages = new SqliteMessageRepository(this.db, options.messageBlockSize);
    this.chats = new SqliteChatRepository(this.db);
    this.contacts = new SqliteContactRepository(this.db);
    this.media = new SqliteMediaRepository(this.db);
    this.authState = new SqliteAuthStateRepository(this.db);
    this.state = new SqliteStateRepository(this.db);
    this.outbound = new SqliteOutboundQueue(this.db);
    this.events = new SqliteEventLog(this.db);
    this.deliveries = new SqliteDeliveryQueue(this.db, this.events, options.clock ?? systemClock);
    this.idempotency = new SqliteIdempotencyStore(this.db);
  }

  /**
   * Opens (a file damaged in its header is refused here, naming it), then checks the whole file with
   * `PRAGMA quick_check` (see {@link checkIntegrity}): damage found within {@link INTEGRITY_WAIT_MS}
   * refuses the start, found later makes the store not ready.
   */
  async init(): Promise<void> {
    const schemaVersion = this.db.open();
    if (this.integrityCheck) await this.checkIntegrity();
    this.logger?.info({ file: this.file, schemaVersion }, 'sqlite storage open');
  }

  private async checkIntegrity(): Promise<void> {
    const result = await checkIntegrity(this.file);
    if ('pending' in result) {
      this.logger?.info({ file: this.file, waitedMs: INTEGRITY_WAIT_MS }, 'sqlite integrity check goes on in the background');
      void result.pending.then((late) => {
        if (late.ok) this.logger?.info({ file: this.file, ...(late.skipped ? { skipped: late.skipped } : {}) }, 'sqlite integrity check done');
        else this.db.damaged(late.detail);
      });
    } else if (!result.ok) {
      await this.db.close();
      throw new ServiceUnavailableError(`${corruptionAdvice(this.file)} (quick_check: ${result.detail})`);
    } else if (result.skipped) {
      this.logger?.warn({ file: this.file, error: result.skipped }, 'sqlite integrity check could not run');
    }
  }

  async health(): Promise<StorageHealth> {
    if (!this.db.isOpen) return { ready: false, detail: 'sqlite storage is not open' };
    return this.db.check();
  }

  flush(): Promise<void> {
    return this.db.flush();
  }

  onDiscard(listener: () => void): void {
    this.db.onDiscard(listener);
  }

  async close(): Promise<void> {
    if (!this.db.isOpen) return;
    await this.db.close();
    this.logger?.info({ file: this.file }, 'sqlite storage closed');
  }
}
