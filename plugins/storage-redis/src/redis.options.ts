/** Options of the Redis storage plugin, as written in the server configuration. */
export interface RedisStorageOptions {
  /** `redis://[user:pass@]host:port[/db]` or `rediss://…`. Defaults to `REDIS_URL`, then `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key Parley writes, so several deployments can share one database. Default `parley:`. */
  keyPrefix?: string;
  /**
   * Days of message history to keep, by message timestamp; 0 keeps everything. Older messages are
   * trimmed from an instance whenever a message of that instance is written.
   */
  messageRetentionDays?: number;
  /** Upper bound of one storage operation in ms; past it the call fails with HTTP 503. Default 5000. */
  commandTimeoutMs?: number;
  /** Connection attempts at start-up before `init` gives up. Default 5. */
  connectAttempts?: number;
}

/** Options with every default applied. */
export type ResolvedRedisOptions = Required<RedisStorageOptions>;

/** JSON Schema of {@link RedisStorageOptions}; the host validates it with ajv in strict mode. */
export const redisOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    url: { type: 'string', pattern: '^rediss?://' },
    keyPrefix: { type: 'string', minLength: 1, maxLength: 100 },
    messageRetentionDays: { type: 'integer', minimum: 0 },
    commandTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
    connectAttempts: { type: 'integer', minimum: 1, maximum: 100 },
  },
} as const;

/** Applies defaults; `env` supplies `REDIS_URL`. */
export function resolveRedisOptions(options: RedisStorageOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedRedisOptions {
  return {
    url: options.url ?? (env.REDIS_URL || 'redis://127.0.0.1:6379'),
    keyPrefix: options.keyPrefix ?? 'parley:',
    messageRetentionDays: options.messageRetentionDays ?? 0,
    commandTimeoutMs: options.commandTimeoutMs ?? 5000,
    connectAttempts: options.connectAttempts ?? 5,
  };
}
