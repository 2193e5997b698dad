import { networkStorageOptionsSchema, resolveNetworkStorageOptions, type NetworkStorageOptions } from '@parley/core';
import type { SentinelSettings } from './sentinel/sentinel-locator.js';

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
   * With `sentinel`, the sentinels are also asked for the master this often.
   */
  pingIntervalMs?: number;
  /**
   * Redis Sentinel: the master is the one these sentinels name (`url` then gives only the scheme,
   * credentials and database; its host and port are not used), and a failover is followed.
   */
  sentinel?: SentinelSettings;
  /**
   * Replicas that must confirm (Redis `WAIT`) the writes of a request before it is answered, so that a
   * failover keeps them. Default 1 with `sentinel`, else 0 (not asked).
   */
  waitReplicas?: number;
  /** How long a request waits for those confirmations (ms); less than `commandTimeoutMs`. Default 1000 (or half of `commandTimeoutMs` when that is less). */
  waitTimeoutMs?: number;
}

/** Options with every default applied (`sentinel` stays optional). */
export type ResolvedRedisOptions = Required<Omit<RedisStorageOptions, 'sentinel'>> & Pick<RedisStorageOptions, 'sentinel'>;

/** JSON Schema of {@link RedisStorageOptions}; the host validates it with ajv in strict mode. */
export const redisOptionsSchema = networkStorageOptionsSchema('^rediss?://', {
  keyPrefix: { type: 'string', minLength: 1, maxLength: 100 },
  connectAttempts: { type: 'integer', minimum: 1, maximum: 100 },
  pingIntervalMs: { type: 'integer', minimum: 100, maximum: 60000 },
  sentinel: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'nodes'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      nodes: {
        type: 'array', minItems: 1, maxItems: 16, uniqueItems: true,
        items: { type: 'string', pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[^:\\s\\[\\]]+):[0-9]{1,5}$' },
      },
      password: { type: 'string', minLength: 1, maxLength: 1000 },
    },
  },
  waitReplicas: { type: 'integer', minimum: 0, maximum: 100 },
  waitTimeoutMs: { type: 'integer', minimum: 10, maximum: 60000 },
});

/** Applies defaults; `env` supplies `REDIS_URL`. Throws a TypeError when `waitTimeoutMs` is not below `commandTimeoutMs`. */
export function resolveRedisOptions(options: RedisStorageOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedRedisOptions {
  const network = resolveNetworkStorageOptions(options, env.REDIS_URL, 'redis://127.0.0.1:6379');
  const waitTimeoutMs = options.waitTimeoutMs ?? Math.min(1000, Math.floor(network.commandTimeoutMs / 2));
  if (waitTimeoutMs >= network.commandTimeoutMs) {
    throw new TypeError(`waitTimeoutMs (${waitTimeoutMs}) must be less than commandTimeoutMs (${network.commandTimeoutMs})`);
  }
  return {
    ...network,
    keyPrefix: options.keyPrefix ?? 'parley:',
    connectAttempts: options.connectAttempts ?? 5,
    pingIntervalMs: options.pingIntervalMs ?? 1000,
    ...(options.sentinel ? { sentinel: options.sentinel } : {}),
    waitReplicas: options.waitReplicas ?? (options.sentinel ? 1 : 0),
    waitTimeoutMs,
  };
}
