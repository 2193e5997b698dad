/** Options of the MongoDB storage plugin, as written in the server configuration. */
export interface MongoStorageOptions {
  /** `mongodb://…` or `mongodb+srv://…`. Defaults to `MONGODB_URL`, then `mongodb://127.0.0.1:27017`. */
  url?: string;
  /** Database name. Default `parley`. */
  dbName?: string;
  /** Prefix of every collection name, so several deployments can share one database. Default none. */
  collectionPrefix?: string;
  /**
   * Days of message history to keep, by message timestamp; 0 keeps everything. Enforced by a TTL
   * index, so MongoDB deletes expired messages in the background (about once a minute).
   */
  messageRetentionDays?: number;
  /** Upper bound of one storage operation in ms (server selection included); past it the call fails with HTTP 503. Default 5000. */
  commandTimeoutMs?: number;
}

/** Options with every default applied. */
export type ResolvedMongoOptions = Required<MongoStorageOptions>;

/** JSON Schema of {@link MongoStorageOptions}; the host validates it with ajv in strict mode. */
export const mongoOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    url: { type: 'string', pattern: '^mongodb(\\+srv)?://' },
    dbName: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[^/\\\\. "$*<>:|?]+$' },
    collectionPrefix: { type: 'string', maxLength: 40, pattern: '^[A-Za-z0-9_.-]*$' },
    messageRetentionDays: { type: 'integer', minimum: 0 },
    commandTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
  },
} as const;

/** Applies defaults; `env` supplies `MONGODB_URL`. */
export function resolveMongoOptions(options: MongoStorageOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedMongoOptions {
  return {
    url: options.url ?? (env.MONGODB_URL || 'mongodb://127.0.0.1:27017'),
    dbName: options.dbName ?? 'parley',
    collectionPrefix: options.collectionPrefix ?? '',
    messageRetentionDays: options.messageRetentionDays ?? 0,
    commandTimeoutMs: options.commandTimeoutMs ?? 5000,
  };
}
