import type { SqliteHealthEvents } from './sqlite-health.js';

/** How long a writer waits for another connection's lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * WAL pages between automatic checkpoints (SQLite's default is 1,000). A checkpoint copies each page
 * once however often the commits since the last one rewrote it, and the same hot pages (a chat's
 * latest messages, index leaves) are rewritten by every turn's commit: checkpointing 4x less often
 * copies far fewer pages per write (bench/rest-send: commit time per send roughly halved). The WAL
 * file grows to about 16 MiB before it is reused; durability is the same.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 4_000;

/**
 * With a {@link BackgroundCheckpointer}, the writer's own automatic checkpoint is only a backstop:
 * it runs once the WAL holds this many pages (64 MiB), which the background thread normally never
 * lets happen.
 */
export const WAL_BACKSTOP_PAGES = 16_000;

/**
 * The background checkpointer starts after this many writing statements: a thread is worth its
 * start-up only for a database that keeps writing (short-lived stores, as in tests, never start one).
 */
export const BACKGROUND_AFTER_WRITES = 1_000;

/** Options of {@link SqliteDatabase} (SqliteStorage resolves their defaults). */
export interface SqliteDatabaseOptions {
  /** Checkpoint from a worker thread instead of inside commits. */
  backgroundCheckpoints: boolean;
  /** Told when a background checkpoint fails (the backstop checkpoint still runs). */
  onCheckpointError: (message: string) => void;
  /** Told which existing files of the database were readable by others and are now 0600. */
  onPermissionsTightened: (files: string[]) => void;
  /** Told when writes start failing, work again, or the file is found damaged. */
  health: SqliteHealthEvents;
}
