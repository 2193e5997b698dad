import { createClient } from 'redis';

/**
 * Deletes every key under `prefix` from the Redis at `url`, and nothing else: tests and benchmarks
 * share the machine's Redis, which is never flushed. For test suites and benchmarks
 * (`@parley/storage-redis/testing`).
 */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  if (!prefix) throw new Error('deleteKeys needs a key prefix: it never deletes a whole database');
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      if (keys.length > 0) await client.unlink(keys);
    }
  } finally {
    await client.close();
  }
}

export { PrivateRedis } from './private-redis.js';
export { SentinelSet, type SentinelPorts } from './sentinel-set.js';
