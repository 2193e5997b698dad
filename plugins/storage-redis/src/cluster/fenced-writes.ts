import { FencedOffError, type Fence } from '@parley/core';
import { LuaScript } from '../lua-script.js';
import type { RedisClient } from '../redis-connection.js';
import type { ClusterKeys } from './cluster-keys.js';

// Every fenced write compares the instance's current token (KEYS[1]) with the writer's (ARGV[1]) in
// the same script as the write: a node that lost the instance can never land a write after the new owner's.
const FENCE_CHECK = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end\n`;

/** KEYS: fence, auth hash. ARGV: token, delete count, deleted fields…, then field, value pairs. */
const authSetScript = new LuaScript(`${FENCE_CHECK}
local deletes = tonumber(ARGV[2])
if deletes > 0 then redis.call('HDEL', KEYS[2], unpack(ARGV, 3, 2 + deletes)) end
if #ARGV > 2 + deletes then redis.call('HSET', KEYS[2], unpack(ARGV, 3 + deletes)) end
return 1
`);

/** KEYS: fence, key to delete. ARGV: token. */
const deleteKeyScript = new LuaScript(`${FENCE_CHECK}
redis.call('DEL', KEYS[2])
return 1
`);

/** KEYS: fence, namespaces set, namespace hash. ARGV: token, namespace, id, JSON. */
const statePutScript = new LuaScript(`${FENCE_CHECK}
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
return 1
`);

/** KEYS: fence, namespace hash. ARGV: token, id. Answers 1 when a document was deleted. */
const stateDeleteScript = new LuaScript(`${FENCE_CHECK}
return redis.call('HDEL', KEYS[2], ARGV[2])
`);

/**
 * Lua deleting every state namespace starting with a prefix: `namespaces` (the set), `stem` (the state
 * key stem) and `prefix` are the script's references to them. Compares plain text: no glob, no pattern.
 */
export function clearPrefixLua(namespaces: string, stem: string, prefix: string): string {
  return `
for _, ns in ipairs(redis.call('SMEMBERS', ${namespaces})) do
  if string.sub(ns, 1, #${prefix}) == ${prefix} then
    redis.call('DEL', ${stem} .. ns)
    redis.call('SREM', ${namespaces}, ns)
  end
end
return 1
`;
}

/** KEYS: fence, namespaces set. ARGV: token, state key stem, prefix. */
const stateClearPrefixScript = new LuaScript(`${FENCE_CHECK}${clearPrefixLua('KEYS[2]', 'ARGV[2]', 'ARGV[3]')}`);

/** Runs a fenced script; FencedOffError when the token is no longer the instance's. */
async function fenced(client: RedisClient, script: LuaScript, fence: Fence, keys: string[], args: (string | number)[], keysOf: ClusterKeys): Promise<number> {
  const reply = Number(await script.run(client, [keysOf.fence(fence.instance), ...keys], [fence.token, ...args]));
  if (reply === -1) throw new FencedOffError(fence.instance);
  return reply;
}

/** The fenced forms of the auth-state and state writes (see `Fence` in @parley/core). */
export class FencedWrites {
  constructor(private readonly keys: ClusterKeys) {}

  authSet(client: RedisClient, fence: Fence, authKey: string, deletes: string[], writes: Record<string, string>): Promise<number> {
    return fenced(client, authSetScript, fence, [authKey], [deletes.length, ...deletes, ...Object.entries(writes).flat()], this.keys);
  }

  deleteKey(client: RedisClient, fence: Fence, key: string): Promise<number> {
    return fenced(client, deleteKeyScript, fence, [key], [], this.keys);
  }

  statePut(client: RedisClient, fence: Fence, namespaces: string, hash: string, namespace: string, id: string, json: string): Promise<number> {
    return fenced(client, statePutScript, fence, [namespaces, hash], [namespace, id, json], this.keys);
  }

  stateDelete(client: RedisClient, fence: Fence, hash: string, id: string): Promise<number> {
    return fenced(client, stateDeleteScript, fence, [hash], [id], this.keys);
  }

  stateClearPrefix(client: RedisClient, fence: Fence, namespaces: string, stem: string, prefix: string): Promise<number> {
    return fenced(client, stateClearPrefixScript, fence, [namespaces], [stem, prefix], this.keys);
  }
}
