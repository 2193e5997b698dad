import { ServiceUnavailableError } from '@parley/core';
import { LuaScript } from './lua-script.js';
import type { RedisClient } from './redis-connection.js';

/** Writes ARGV[4] into field ARGV[1] only if the field still holds ARGV[3] (or is still absent when ARGV[2] is 0). */
const compareAndSet = new LuaScript(`
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  if current ~= ARGV[3] then return 0 end
elseif current then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
return 1
`);

/** Retries of an optimistic update before giving up; only heavy contention on one document exhausts them. */
const MAX_ATTEMPTS = 50;

/**
 * Read-modify-write of one JSON document stored in a hash field, made atomic by compare-and-set:
 * `change` computes the next document from the current one (null when absent) and runs again if
 * another writer got in between. `change` answers `undefined` to leave the document as it is.
 * Answers the document as stored afterwards.
 */
export async function updateHashDocument<T>(
  client: RedisClient,
  key: string,
  field: string,
  change: (current: T | null) => T | undefined,
): Promise<T | null> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const raw = await client.hGet(key, field);
    const current = raw == null ? null : (JSON.parse(raw) as T);
    const next = change(current);
    if (next === undefined) return current;
    const json = JSON.stringify(next);
    const written = await compareAndSet.run(client, [key], [field, raw == null ? 0 : 1, raw ?? '', json]);
    // Answered from the JSON written, so the caller never shares objects with what is stored.
    if (written === 1) return JSON.parse(json) as T;
  }
  throw new ServiceUnavailableError('storage update kept conflicting with concurrent writers; retry');
}
