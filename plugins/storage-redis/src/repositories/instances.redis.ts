import {
  ConflictError, NotFoundError, UniqueClaimConflictError, type InstancePage, type InstancePageRequest, type InstanceRecord,
  type InstanceRepository, type UniqueClaim,
} from '@parley/core';
import { LuaScript } from '../lua-script.js';
import type { RedisConnection } from '../redis-connection.js';
import { keyDigest, type RedisKeys } from '../redis-keys.js';
import { compareIds } from '../record-fields.js';

// KEYS: record, key index, order, order seq, claims, claims of the instance.
// ARGV: id, key digest, record JSON, then one claim field each. Answers 'ok', 'id', 'key' or the
// 1-based index of the first claim another instance holds (nothing is written then).
const createScript = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 'id' end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 'key' end
for i = 4, #ARGV do
  if redis.call('HEXISTS', KEYS[5], ARGV[i]) == 1 then return tostring(i - 3) end
end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[4]), ARGV[1])
for i = 4, #ARGV do
  redis.call('HSET', KEYS[5], ARGV[i], ARGV[1])
  redis.call('SADD', KEYS[6], ARGV[i])
end
return 'ok'
`);

// KEYS: record, claims, claims of the instance. ARGV: id, then one claim field each. Answers 'ok',
// 'missing', or the 1-based index of the first claim another instance holds (nothing is written then).
const claimScript = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
for i = 2, #ARGV do
  local holder = redis.call('HGET', KEYS[2], ARGV[i])
  if holder and holder ~= ARGV[1] then return tostring(i - 1) end
end
for i = 2, #ARGV do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[1])
  redis.call('SADD', KEYS[3], ARGV[i])
end
return 'ok'
`);

// KEYS: record, key index. ARGV: id, expected JSON, next JSON, old key digest, new key digest.
const updateScript = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 'stale' end
if ARGV[4] ~= ARGV[5] then
  local owner = redis.call('HGET', KEYS[2], ARGV[5])
  if owner and owner ~= ARGV[1] then return 'key' end
  if redis.call('HGET', KEYS[2], ARGV[4]) == ARGV[1] then redis.call('HDEL', KEYS[2], ARGV[4]) end
  redis.call('HSET', KEYS[2], ARGV[5], ARGV[1])
end
redis.call('SET', KEYS[1], ARGV[3])
return 'ok'
`);

// KEYS: record, key index, order, claims, claims of the instance. ARGV: id, expected JSON, key digest.
const deleteScript = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 'stale' end
redis.call('DEL', KEYS[1])
if redis.call('HGET', KEYS[2], ARGV[3]) == ARGV[1] then redis.call('HDEL', KEYS[2], ARGV[3]) end
redis.call('ZREM', KEYS[3], ARGV[1])
for _, field in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  if redis.call('HGET', KEYS[4], field) == ARGV[1] then redis.call('HDEL', KEYS[4], field) end
end
redis.call('DEL', KEYS[5])
return 'ok'
`);

const MAX_ATTEMPTS = 50;

/** Instances as JSON strings, listed in insertion order and found by the digest of their key. */
export class RedisInstanceRepository implements InstanceRepository {
  constructor(private readonly connection: RedisConnection, private readonly keys: RedisKeys) {}

  async create(record: InstanceRecord, claims: readonly UniqueClaim[] = []): Promise<void> {
    const k = this.keys;
    const outcome = await this.connection.run((client) => createScript.run(client,
      [k.instance(record.id), k.instanceByKey, k.instanceOrder, k.instanceOrderSeq, k.instanceClaims, k.claimsOf(record.id)],
      [record.id, keyDigest(record.key), JSON.stringify(record), ...claims.map(claimField)]));
    if (outcome === 'id') throw new ConflictError(`instance ${record.id} already exists`, 'instance_exists');
    if (outcome === 'key') throw new ConflictError('an instance with this key already exists', 'instance_exists');
    if (outcome !== 'ok') throw new UniqueClaimConflictError(claims[Number(outcome) - 1]!);
  }

  async claim(id: string, claims: readonly UniqueClaim[]): Promise<void> {
    const k = this.keys;
    const outcome = await this.connection.run((client) =>
      claimScript.run(client, [k.instance(id), k.instanceClaims, k.claimsOf(id)], [id, ...claims.map(claimField)]));
    if (outcome === 'missing') throw new NotFoundError(`instance ${id}`);
    if (outcome !== 'ok') throw new UniqueClaimConflictError(claims[Number(outcome) - 1]!);
  }

  /** The instance's set of claim fields, sorted (claims are few per instance). */
  async claimsOf(id: string): Promise<UniqueClaim[]> {
    const fields = (await this.connection.run((client) => client.sMembers(this.keys.claimsOf(id)))).sort(compareIds);
    return fields.map((name) => {
      const at = name.indexOf('\0');
      return { namespace: name.slice(0, at), value: name.slice(at + 1) };
    });
  }

  async claimHolder(namespace: string, value: string): Promise<string | null> {
    return (await this.connection.run((client) => client.hGet(this.keys.instanceClaims, claimField({ namespace, value })))) ?? null;
  }

  async get(id: string): Promise<InstanceRecord | null> {
    const raw = await this.connection.run((client) => client.get(this.keys.instance(id)));
    return raw == null ? null : (JSON.parse(raw) as InstanceRecord);
  }

  async findByKey(key: string): Promise<InstanceRecord | null> {
    return this.connection.run(async (client) => {
      const id = await client.hGet(this.keys.instanceByKey, keyDigest(key));
      if (id == null) return null;
      const raw = await client.get(this.keys.instance(id));
      if (raw == null) return null;
      const record = JSON.parse(raw) as InstanceRecord;
      // The index is keyed by digest: compare the key itself too.
      return record.key === key ? record : null;
    });
  }

  async list(): Promise<InstanceRecord[]> {
    const records = await this.connection.run(async (client) => {
      const ids = await client.zRange(this.keys.instanceOrder, 0, -1);
      if (ids.length === 0) return [];
      return client.mGet(ids.map((id) => this.keys.instance(id)));
    });
    const list = records.filter((raw): raw is string => raw != null).map((raw) => JSON.parse(raw) as InstanceRecord);
    // Stable: instances created in the same millisecond stay in insertion order.
    return list.sort((a, b) => a.createdAt - b.createdAt);
  }

  async listPage({ limit, after }: InstancePageRequest): Promise<InstancePage> {
    const { entries, raws } = await this.connection.run(async (client) => {
      // The order set's scores are insertion sequence numbers: a score range after the cursor.
      const found = await client.zRangeWithScores(this.keys.instanceOrder, after === undefined ? '-inf' : `(${after}`, '+inf',
        { BY: 'SCORE', LIMIT: { offset: 0, count: limit + 1 } });
      const page = found.slice(0, limit);
      return { entries: found, raws: page.length ? await client.mGet(page.map(({ value }) => this.keys.instance(value))) : [] };
    });
    // An instance deleted between the two reads is left out.
    const items = raws.filter((raw): raw is string => raw != null).map((raw) => JSON.parse(raw) as InstanceRecord);
    return { items, ...(entries.length > limit ? { next: String(entries[limit - 1]!.score) } : {}) };
  }

  async update(id: string, patch: Partial<Omit<InstanceRecord, 'id'>>): Promise<InstanceRecord> {
    const k = this.keys;
    return this.connection.run(async (client) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const raw = await client.get(k.instance(id));
        if (raw == null) throw new NotFoundError(`instance ${id}`);
        const current = JSON.parse(raw) as InstanceRecord;
        // A member patched to undefined is removed, as JSON has no undefined.
        const json = JSON.stringify({ ...current, ...patch, id });
        const next = JSON.parse(json) as InstanceRecord;
        const outcome = await updateScript.run(client, [k.instance(id), k.instanceByKey],
          [id, raw, json, keyDigest(current.key), keyDigest(next.key)]);
        if (outcome === 'key') throw new ConflictError('an instance with this key already exists', 'instance_exists');
        if (outcome === 'ok') return next;
      }
      throw new ConflictError(`instance ${id} is being updated concurrently; retry`);
    });
  }

  async delete(id: string): Promise<boolean> {
    const k = this.keys;
    return this.connection.run(async (client) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const raw = await client.get(k.instance(id));
        if (raw == null) return false;
        const current = JSON.parse(raw) as InstanceRecord;
        const outcome = await deleteScript.run(client, [k.instance(id), k.instanceByKey, k.instanceOrder, k.instanceClaims, k.claimsOf(id)],
          [id, raw, keyDigest(current.key)]);
        if (outcome === 'ok') return true;
      }
      throw new ConflictError(`instance ${id} is being updated concurrently; retry`);
    });
  }
}

/** The claims hash's field of a claim; the NUL cannot occur in a namespace name. */
function claimField(claim: UniqueClaim): string {
  return `${claim.namespace}\0${claim.value}`;
}
