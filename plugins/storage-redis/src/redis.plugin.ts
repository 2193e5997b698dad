import { definePlugin, Tokens } from '@parley/core';
import { RedisStorage } from './redis.storage.js';
import { redisOptionsSchema, type RedisStorageOptions } from './redis.options.js';

/** `@parley/storage-redis`: registers {@link RedisStorage} as the server's storage. */
export default definePlugin<RedisStorageOptions>({
  name: '@parley/storage-redis',
  kind: 'storage',
  coreVersion: '^0.1.0',
  optionsSchema: redisOptionsSchema,
  register({ container, options, logger, clock }) {
    const storage = new RedisStorage(options, logger.child({ storage: 'redis' }), clock);
    container.register(Tokens.Storage, { useValue: storage });
  },
});
