export { default } from './redis.plugin.js';
export { RedisStorage } from './redis.storage.js';
export { redisOptionsSchema, resolveRedisOptions, type RedisStorageOptions, type ResolvedRedisOptions } from './redis.options.js';
