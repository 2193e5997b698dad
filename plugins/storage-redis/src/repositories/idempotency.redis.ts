import type { IdempotencyClaim, IdempotencyCompletion, IdempotencyRecord, IdempotencyStore, IdempotentAnswer } from '@parley/core';
import { LuaScript, pairsToObject } from '../lua-script.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from '../redis-keys.js';

// KEYS: the key's hash. ARGV: now, fingerprint, owner, expiresAt, TTL ms. Answers the live record's
// fields, or nothing once it took the key. The answer is kept as the JSON text it was given.
const beginScript = new LuaScript(`
local expires = redis.call('HGET', KEYS[1], 'expiresAt')
if expires and tonumber(expires) > tonumber(ARGV[1]) then return redis.call('HGETALL', KEYS[1]) end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', 'in_progress', 'fingerprint', ARGV[2], 'owner', ARGV[3], 'expiresAt', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return false
`);

// KEYS: the key's hash. ARGV: owner, answer JSON, expiresAt, TTL ms.
const completeScript = new LuaScript(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'in_progress' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'answer', ARGV[2], 'expiresAt', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`);

// KEYS: the key's hash. ARGV: owner.
const releaseScript = new LuaScript(`
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] and redis.call('HGET', KEYS[1], 'state') == 'in_progress' then redis.call('DEL', KEYS[1]) end
return 1
`);

/**
 * Idempotency keys: one hash per key, created and completed by Lua scripts (atomic across servers
 * sharing the Redis), with a Redis TTL matching its `expiresAt` so expired keys leave on their own.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly connection: RedisConnection, private readonly keys: RedisKeys) {}

  async begin(scope: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyRecord | null> {
    const reply = await this.connection.run((client) => beginScript.run(client, [this.keys.idempotency(scope, key)], [
      claim.now, claim.fingerprint, claim.owner, claim.expiresAt, ttl(claim.expiresAt, claim.now),
    ]));
    return Array.isArray(reply) ? toRecord(pairsToObject(reply)) : null;
  }

  async complete(scope: string, key: string, done: IdempotencyCompletion): Promise<boolean> {
    const reply = await this.connection.run((client) => completeScript.run(client, [this.keys.idempotency(scope, key)], [
      done.owner, JSON.stringify(done.answer), done.expiresAt, ttl(done.expiresAt, done.now),
    ]));
    return Number(reply) === 1;
  }

  async release(scope: string, key: string, owner: string): Promise<void> {
    await this.connection.run((client) => releaseScript.run(client, [this.keys.idempotency(scope, key)], [owner]));
  }

  async get(scope: string, key: string, now: number): Promise<IdempotencyRecord | null> {
    const fields = await this.connection.run((client) => client.hGetAll(this.keys.idempotency(scope, key)));
    const record = fields.state ? toRecord(fields) : null;
    return record && record.expiresAt > now ? record : null;
  }
}

/** Redis TTL of a record that ends at `expiresAt`: at least 1 ms (PEXPIRE refuses 0). */
function ttl(expiresAt: number, now: number): number {
  return Math.max(1, Math.ceil(expiresAt - now));
}

function toRecord(fields: Record<string, string>): IdempotencyRecord {
  return {
    state: fields.state as IdempotencyRecord['state'], fingerprint: fields.fingerprint!, owner: fields.owner!, expiresAt: Number(fields.expiresAt),
    ...(fields.answer === undefined ? {} : { answer: JSON.parse(fields.answer) as IdempotentAnswer }),
  };
}
