import { networkStorageOptionsSchema, resolveNetworkStorageOptions, type NetworkStorageOptions } from '@parley/core';

/**
 * Options of the Redis storage plugin, as written in the server configuration: `url` is
 * `redis://[user:pass@]host:port[/db]` or `rediss://…` (default `REDIS_URL`, then `redis://127.0.0.1:6379`).
 * History beyond `messageRetentionDays` is trimmed from an instance whenever a message of that instance
 * is written.
 */
export interface RedisStorageOptions extends NetworkStorageOptions {
  /** Prefix of every key Parley writes, so several deployments can share one database. Default `parley:`. */
  keyPrefix?: string;
  /** Connection attempts at start-up before `init` gives up. Default 5. */
  connectAttempts?: number;
  /**
   * Each connection sends a PING this often (ms). A connection on which a command or a PING waited
   * `commandTimeoutMs` with nothing heard since it was sent is replaced by a new one. Default 1000.
   */
  pingIntervalMs?: number;
}

/** Options with every default applied. */
export type ResolvedRedisOptions = Required<RedisStorageOptions>;

/** JSON Schema of {@link RedisStorageOptions}; the host validates it with ajv in strict mode. */
export const redisOptionsSchema = networkStorageOptionsSchema('^rediss?://', {
  keyPrefix: { type: 'string', minLength: 1, maxLength: 100 },
  connectAttempts: { type: 'integer', minimum: 1, maximum: 100 },
  pingIntervalMs: { type: 'integer', minimum: 100, maximum: 60000 },
});

/** Applies defaults; `env` supplies `REDIS_URL`. */
export function resolveRedisOptions(options: RedisStorageOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedRedisOptions {
  return {
    ...resolveNetworkStorageOptions(options, env.REDIS_URL, 'redis://127.0.0.1:6379'),
    keyPrefix: options.keyPrefix ?? 'parley:',
    connectAttempts: options.connectAttempts ?? 5,
    pingIntervalMs: options.pingIntervalMs ?? 1000,
  };
}
