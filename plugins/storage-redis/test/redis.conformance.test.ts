import { describe } from 'node:test';
import { describeStorageConformance, type StorageHarness } from '@parley/testkit';
import type { Clock, Storage } from '@parley/core';
import { RedisStorage } from '../src/index.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';

describe('@parley/storage-redis conformance', () => {
  const url = redisUrlOrSkip('redis storage conformance');
  if (!url) return;
  const runPrefix = uniquePrefix('conformance');
  const prefixes = new WeakMap<Storage, string>();
  let created = 0;

  const open = (keyPrefix: string, clock?: Clock): Storage => {
    const storage = new RedisStorage({ url, keyPrefix }, undefined, clock);
    prefixes.set(storage, keyPrefix);
    return storage;
  };

  const harness: StorageHarness = {
    create: async (clock) => open(`${runPrefix}${created++}:`, clock),
    reopen: async (previous) => open(prefixes.get(previous)!),
    cleanup: () => deleteKeys(url, runPrefix),
  };
  describeStorageConformance('redis', harness);
});
