import { definePlugin } from '@parley/core';
import { RedisStorage } from './redis.storage.js';
import { redisOptionsSchema, type RedisStorageOptions } from './redis.options.js';

/** `@parley/storage-redis`: registers {@link RedisStorage} as the server's storage. */
export default definePlugin<RedisStorageOptions>({
  name: '@parley/storage-redis',
  kind: 'storage',
  provides: { storage: true },
  coreVersion: '^0.1.0',
  optionsSchema: redisOptionsSchema,
  register({ storage: slot, options, logger, clock }) {
    const storage = new RedisStorage(options, logger.child({ storage: 'redis' }), clock);
    slot.set(storage);
  },
});
