import { describe } from 'node:test';
import { describeClusterStoreConformance, type StorageHarness } from '@parley/testkit';
import { RedisStorage } from '../src/redis.storage.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';

describe('@parley/storage-redis cluster coordination', () => {
  const url = redisUrlOrSkip('redis cluster store');
  if (!url) return;
  const runPrefix = uniquePrefix('cluster');
  let created = 0;
  const harness: StorageHarness = {
    create: async (clock) => new RedisStorage({ url, keyPrefix: `${runPrefix}${created++}:` }, undefined, clock),
    cleanup: () => deleteKeys(url, runPrefix),
  };
  describeClusterStoreConformance('redis', harness);
});
