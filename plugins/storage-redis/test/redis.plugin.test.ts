import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertStorageManifest, registerPlugin } from '@parley/testkit';
import plugin, { RedisStorage, redisOptionsSchema, resolveRedisOptions } from '../src/index.js';

describe('@parley/storage-redis plugin manifest', () => {
  it('declares a storage plugin with a closed options schema', () => {
    assert.equal(plugin.optionsSchema, redisOptionsSchema);
    assertStorageManifest(plugin, '@parley/storage-redis', ['commandTimeoutMs', 'connectAttempts', 'keyPrefix', 'messageRetentionDays', 'pingIntervalMs', 'sentinel', 'url', 'waitReplicas', 'waitTimeoutMs']);
  });

  it('registers a RedisStorage as the storage back end without connecting', async () => {
    const storage = (await registerPlugin(plugin, { url: 'redis://127.0.0.1:1', keyPrefix: 'test:' })).storage!;
    assert.ok(storage instanceof RedisStorage);
    assert.equal(storage.name, 'redis');
    assert.deepEqual(await storage.health(), { ready: false, detail: 'not connected' });
    await storage.close();
  });

  it('applies defaults: REDIS_URL, then the local Redis; prefix parley:; history kept forever', () => {
    assert.deepEqual(resolveRedisOptions({}, {}), {
      url: 'redis://127.0.0.1:6379', keyPrefix: 'parley:', messageRetentionDays: 0, commandTimeoutMs: 5000, connectAttempts: 5, pingIntervalMs: 1000,
      waitReplicas: 0, waitTimeoutMs: 1000,
    });
    assert.equal(resolveRedisOptions({}, { REDIS_URL: 'redis://cache:6380/2' }).url, 'redis://cache:6380/2');
    assert.equal(resolveRedisOptions({ url: 'rediss://h:1' }, { REDIS_URL: 'redis://cache:6380/2' }).url, 'rediss://h:1');
  });
});
