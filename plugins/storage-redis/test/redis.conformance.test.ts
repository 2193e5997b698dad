import { describe } from 'node:test';
import { describeStorageConformance, type StorageHarness } from '@parley/testkit';
import type { Storage } from '@parley/core';
import { RedisStorage } from '../src/index.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';

describe('@parley/storage-redis conformance', () => {
  const url = redisUrlOrSkip('redis storage conformance');
  if (!url) return;
  const runPrefix = uniquePrefix('conformance');
  const prefixes = new WeakMap<Storage, string>();
  let created = 0;

  const open = (keyPrefix: string): Storage => {
    const storage = new RedisStorage({ url, keyPrefix });
    prefixes.set(storage, keyPrefix);
    return storage;
  };

  const harness: StorageHarness = {
    create: async () => open(`${runPrefix}${created++}:`),
    reopen: async (previous) => open(prefixes.get(previous)!),
    cleanup: () => deleteKeys(url, runPrefix),
  };
  describeStorageConformance('redis', harness);
});
