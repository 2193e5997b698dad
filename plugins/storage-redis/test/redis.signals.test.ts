import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { describeSignalsConformance } from '@parley/testkit';
import { RedisStorage } from '../src/index.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';

describe('@parley/storage-redis signals (pub/sub among the servers on one Redis and prefix)', () => {
  const url = redisUrlOrSkip('redis signals');
  if (!url) return;
  const target = new URL(url);
  const stores: RedisStorage[] = [];
  const open = async (keyPrefix: string, storeUrl = url) => {
    const storage = new RedisStorage({ url: storeUrl, keyPrefix, commandTimeoutMs: 500 });
    await storage.init();
    stores.push(storage);
    return storage;
  };
  after(async () => {
    for (const storage of stores) await storage.close();
  });
  const runPrefix = uniquePrefix('signals-conformance');
  describeSignalsConformance('redis', {
    create: async (scope) => new RedisStorage({ url, keyPrefix: `${runPrefix}${scope}:` }),
    outage: {
      server: { host: target.hostname, port: Number(target.port || 6379) },
      create: async (scope, port) => new RedisStorage({ url: `redis://127.0.0.1:${port}`, keyPrefix: `${runPrefix}${scope}:`, commandTimeoutMs: 400, pingIntervalMs: 100 }),
      silentMs: 1000,
    },
    cleanup: () => deleteKeys(url, runPrefix),
  });

  it('a publish answers how many subscribed connections received it', async () => {
    const prefix = uniquePrefix('signals');
    const [one, two] = [await open(prefix), await open(prefix)];
    const stopOne = await one.signals().subscribe('t', () => undefined);
    await two.signals().subscribe('t', () => undefined);
    assert.equal(await two.signals().publish('t', 'first'), 2, 'two subscribed connections received it');
    await stopOne();
    assert.equal(await two.signals().publish('t', 'second'), 1);
    assert.equal(one.signals(), one.signals(), 'one object per storage');
  });
});
