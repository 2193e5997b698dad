import { networkStorageOptionsSchema, resolveNetworkStorageOptions, type NetworkStorageOptions } from '@parley/core';

/**
 * Options of the PostgreSQL storage plugin, as written in the server configuration: `url` is
 * `postgres://[user[:password]@]host[:port]/database[?sslmode=…]` (default `DATABASE_URL`, then
 * `postgres://postgres@127.0.0.1:5432/postgres`). History beyond `messageRetentionDays` is deleted by a
 * sweep once a minute; `commandTimeoutMs` bounds a connection checkout, each statement on the server
 * (`statement_timeout`) and the wait for its answer.
 */
export interface PostgresStorageOptions extends NetworkStorageOptions {
  /** Schema holding Parley's tables, created when missing, so several deployments can share one database. Default `public`. */
  schema?: string;
  /** Connections the pool opens at most. Default 10. */
  poolSize?: number;
  /**
   * PostgreSQL's `synchronous_commit` for Parley's sessions. `on` (default): a commit waits until its WAL is
   * on disk. `off`: a commit is answered once it is in PostgreSQL's WAL buffers, and `Storage.flush` waits
   * until the WAL is on disk up to its call (delivery enqueues stay durable on their own); a crash of the
   * PostgreSQL server or of its machine can then lose the commits since the last flush (never corrupt
   * anything), as SQLite's group commit can.
   */
  synchronousCommit?: 'on' | 'off';
  /**
   * Group commit (default false): the writes that need not be durable on their own (messages, chats,
   * contacts, media, event-log rows, unfenced state and auth state) share one transaction per event-loop
   * turn on one connection, committed once; `Storage.flush` waits for it. Off: each is committed on its own.
   */
  groupCommit?: boolean;
}

/** Options with every default applied. */
export type ResolvedPostgresOptions = Required<PostgresStorageOptions>;

/** A lower-case SQL identifier, so that it needs no quoting rules beyond double quotes. */
const SCHEMA_NAME = '^[a-z_][a-z0-9_]{0,62}$';

/** JSON Schema of {@link PostgresStorageOptions}; the host validates it with ajv in strict mode. */
export const postgresOptionsSchema = networkStorageOptionsSchema('^postgres(ql)?://', {
  schema: { type: 'string', pattern: SCHEMA_NAME },
  poolSize: { type: 'integer', minimum: 1, maximum: 100 },
  synchronousCommit: { enum: ['on', 'off'] },
  groupCommit: { type: 'boolean' },
});

/** Applies defaults; `env` supplies `DATABASE_URL`. */
export function resolvePostgresOptions(options: PostgresStorageOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedPostgresOptions {
  return {
    ...resolveNetworkStorageOptions(options, env.DATABASE_URL, 'postgres://postgres@127.0.0.1:5432/postgres'),
    schema: options.schema ?? 'public',
    poolSize: options.poolSize ?? 10,
    synchronousCommit: options.synchronousCommit ?? 'on',
    groupCommit: options.groupCommit ?? false,
  };
}
