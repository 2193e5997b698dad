import { defineStoragePlugin } from '@parley/core';
import { RedisStorage } from './redis.storage.js';
import { redisOptionsSchema, type RedisStorageOptions } from './redis.options.js';

/** `@parley/storage-redis`: registers {@link RedisStorage} as the server's storage. */
export default defineStoragePlugin<RedisStorageOptions>({
  name: '@parley/storage-redis',
  optionsSchema: redisOptionsSchema,
  create: ({ options, logger, clock }) => new RedisStorage(options, logger.child({ storage: 'redis' }), clock),
});
