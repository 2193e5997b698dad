import { networkStorageOptionsSchema, resolveNetworkStorageOptions, type NetworkStorageOptions } from '@parley/core';

/**
 * Options of the MongoDB storage plugin, as written in the server configuration: `url` is
 * `mongodb://…` or `mongodb+srv://…` (default `MONGODB_URL`, then `mongodb://127.0.0.1:27017`). History
 * beyond `messageRetentionDays` is expired by a TTL index (MongoDB deletes in the background, about once
 * a minute); `commandTimeoutMs` includes server selection.
 */
export interface MongoStorageOptions extends NetworkStorageOptions {
  /** Database name. Default `parley`. */
  dbName?: string;
  /** Prefix of every collection name, so several deployments can share one database. Default none. */
  collectionPrefix?: string;
}

/** Options with every default applied. */
export type ResolvedMongoOptions = Required<MongoStorageOptions>;

/** JSON Schema of {@link MongoStorageOptions}; the host validates it with ajv in strict mode. */
export const mongoOptionsSchema = networkStorageOptionsSchema('^mongodb(\\+srv)?://', {
  dbName: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[^/\\\\. "$*<>:|?]+$' },
  collectionPrefix: { type: 'string', maxLength: 40, pattern: '^[A-Za-z0-9_.-]*$' },
});

/** Applies defaults; `env` supplies `MONGODB_URL`. */
export function resolveMongoOptions(options: MongoStorageOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedMongoOptions {
  return {
    ...resolveNetworkStorageOptions(options, env.MONGODB_URL, 'mongodb://127.0.0.1:27017'),
    dbName: options.dbName ?? 'parley',
    collectionPrefix: options.collectionPrefix ?? '',
  };
}
