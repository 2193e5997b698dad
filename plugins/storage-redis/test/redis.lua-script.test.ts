import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createClient } from 'redis';
import { LuaScript } from '../src/lua-script.js';
import type { RedisClient } from '../src/redis-connection.js';
import { redisUrlOrSkip } from './redis-env.js';

describe('@parley/storage-redis Lua scripts', () => {
  const url = redisUrlOrSkip('redis Lua script loading');
  if (!url) return;

  it('sends the source when Redis does not know the script yet (fresh or restarted server), then runs it by digest', async () => {
    // A source no Redis has seen: the first EVALSHA answers NOSCRIPT.
    const script = new LuaScript(`-- ${randomBytes(8).toString('hex')}\nreturn {KEYS[1], ARGV[1], ARGV[2]}`);
    const client = createClient({ url }) as unknown as RedisClient;
    await client.connect();
    try {
      assert.deepEqual(await script.run(client, ['k'], ['a', 2]), ['k', 'a', '2']);
      assert.deepEqual(await script.run(client, ['k'], ['b', 3]), ['k', 'b', '3']);
      assert.deepEqual(await script.run(client, [], [], true), []);
    } finally {
      await client.close();
    }
  });
});
