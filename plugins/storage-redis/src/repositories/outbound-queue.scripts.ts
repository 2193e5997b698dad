import { LuaScript } from '../lua-script.js';

/*
 * The outbound queue's Lua scripts: each runs atomically, so an entry is never leased twice and the
 * indexes move together with the entries.
 *
 * Layout: an entry is a hash (`instance`, `id`, `lane`, `laneKey`, `order`, `dueAt`, `createdAt`,
 * `payload`, `attempts`, optional `lastError` and `leasedUntil`, and a 16-digit enqueue `seq`); a
 * lane is a sorted set scored by `order`, member `<seq>:<id>` (equal orders sort by seq); an
 * instance's entries sit in a sorted set by `dueAt` (same members) for listing and counting; the `due`
 * sorted set scores each lane of an unpaused instance by when its head can next be claimed (its lease
 * end while leased, else its `dueAt`); `lane-instance` maps a lane to its instance.
 *
 * KEYS: 1 due lanes, 2 enqueue sequence, 3 paused instances, 4 lane → instance.
 * ARGV 1–4: stems of entry hashes, lanes, lane sets per instance, entries per instance; operation
 * arguments start at ARGV[5].
 */
const PRELUDE = `
local ITEM, LANE, LANES, INST = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local function idOf(member) return string.sub(member, 18) end
local function refresh(laneKey, instance)
  local head = redis.call('ZRANGE', LANE .. laneKey, 0, 0)[1]
  if not head then
    redis.call('ZREM', KEYS[1], laneKey)
    redis.call('SREM', LANES .. instance, laneKey)
    redis.call('HDEL', KEYS[4], laneKey)
    return
  end
  if redis.call('SISMEMBER', KEYS[3], instance) == 1 then
    redis.call('ZREM', KEYS[1], laneKey)
    return
  end
  local f = redis.call('HMGET', ITEM .. instance .. ':' .. idOf(head), 'leasedUntil', 'dueAt')
  redis.call('ZADD', KEYS[1], f[1] or f[2], laneKey)
end
local function remove(instance, key)
  local f = redis.call('HMGET', key, 'laneKey', 'seq', 'id')
  if not f[1] then return end
  local member = f[2] .. ':' .. f[3]
  redis.call('ZREM', LANE .. f[1], member)
  redis.call('ZREM', INST .. instance, member)
  redis.call('DEL', key)
  refresh(f[1], instance)
end
`;

/**
 * ARGV: instance, id, lane, laneKey, dueAt, createdAt, payload, bound, lease now ('' for none), lease end
 * → 'queued', 'paused' (waiting in a paused instance), 'leased' or 'full'. Sets the lane's due score
 * itself instead of calling refresh() (which reads back the head, the pause and the head's times): it
 * knows before inserting whether the entry will head its lane (equal orders sort by seq, and this seq
 * is the largest yet), and behind another head the score stays that head's, which every other script
 * keeps right. A lane with entries is already registered in the lane sets.
 */
export const enqueueOutbound = new LuaScript(`${PRELUDE}
local instance, id, laneKey, dueAt = ARGV[5], ARGV[6], ARGV[8], ARGV[9]
local key = ITEM .. instance .. ':' .. id
local waiting = redis.call('SISMEMBER', KEYS[3], instance) == 1 and 'paused' or 'queued'
if redis.call('EXISTS', key) == 1 then return waiting end
if redis.call('ZCARD', INST .. instance) >= tonumber(ARGV[12]) then return 'full' end
local seq = string.format('%016d', redis.call('INCR', KEYS[2]))
local head = redis.call('ZRANGE', LANE .. laneKey, 0, 0, 'WITHSCORES')
local heads = not head[1] or tonumber(dueAt) < tonumber(head[2])
local lease = heads and waiting == 'queued' and ARGV[13] ~= '' and tonumber(dueAt) <= tonumber(ARGV[13])
local fields = { 'instance', instance, 'id', id, 'lane', ARGV[7], 'laneKey', laneKey, 'order', dueAt, 'dueAt', dueAt,
  'createdAt', ARGV[10], 'payload', ARGV[11], 'attempts', 0, 'seq', seq }
if lease then
  fields[#fields + 1] = 'leasedUntil'
  fields[#fields + 1] = ARGV[14]
end
redis.call('HSET', key, unpack(fields))
local member = seq .. ':' .. id
redis.call('ZADD', LANE .. laneKey, dueAt, member)
redis.call('ZADD', INST .. instance, dueAt, member)
if not head[1] then
  redis.call('SADD', LANES .. instance, laneKey)
  redis.call('HSET', KEYS[4], laneKey, instance)
end
if waiting == 'paused' then
  redis.call('ZREM', KEYS[1], laneKey)
  return waiting
end
if not heads then return waiting end
redis.call('ZADD', KEYS[1], lease and ARGV[14] or dueAt, laneKey)
return lease and 'leased' or waiting
`);

/** ARGV: now, limit, leasedUntil → entry hashes (flat field lists). */
export const claimOutbound = new LuaScript(`${PRELUDE}
local now, limit, leased = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local out = {}
local lanes = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit)
for _, laneKey in ipairs(lanes) do
  local instance = redis.call('HGET', KEYS[4], laneKey)
  local head = redis.call('ZRANGE', LANE .. laneKey, 0, 0)[1]
  if instance and head then
    local key = ITEM .. instance .. ':' .. idOf(head)
    local f = redis.call('HMGET', key, 'leasedUntil', 'dueAt')
    if tonumber(f[2]) <= now and (not f[1] or tonumber(f[1]) <= now) then
      redis.call('HSET', key, 'leasedUntil', leased)
      redis.call('ZADD', KEYS[1], leased, laneKey)
      table.insert(out, redis.call('HGETALL', key))
    end
  end
end
return out
`);

/** ARGV: instance, id (an entry already gone is left so). */
export const completeOutbound = new LuaScript(`${PRELUDE}
remove(ARGV[5], ITEM .. ARGV[5] .. ':' .. ARGV[6])
return 1
`);

/** ARGV: instance, id, dueAt, error ('' when not failed). */
export const releaseOutbound = new LuaScript(`${PRELUDE}
local instance = ARGV[5]
local key = ITEM .. instance .. ':' .. ARGV[6]
if redis.call('EXISTS', key) == 0 then return 0 end
redis.call('HDEL', key, 'leasedUntil')
redis.call('HSET', key, 'dueAt', ARGV[7])
if ARGV[8] ~= '' then
  redis.call('HINCRBY', key, 'attempts', 1)
  redis.call('HSET', key, 'lastError', ARGV[8])
end
local f = redis.call('HMGET', key, 'laneKey', 'seq', 'id')
redis.call('ZADD', INST .. instance, ARGV[7], f[2] .. ':' .. f[3])
refresh(f[1], instance)
return 1
`);

/** ARGV: instance, id, now → 'cancelled' | 'sending' | 'unknown'. */
export const cancelOutbound = new LuaScript(`${PRELUDE}
local key = ITEM .. ARGV[5] .. ':' .. ARGV[6]
if redis.call('EXISTS', key) == 0 then return 'unknown' end
local leased = redis.call('HGET', key, 'leasedUntil')
if leased and tonumber(leased) > tonumber(ARGV[7]) then return 'sending' end
remove(ARGV[5], key)
return 'cancelled'
`);

/** ARGV: instance, offset, limit → [total, entry hashes…]. */
export const listOutbound = new LuaScript(`${PRELUDE}
local instance = ARGV[5]
local out = { redis.call('ZCARD', INST .. instance) }
local start = tonumber(ARGV[6])
for _, member in ipairs(redis.call('ZRANGE', INST .. instance, start, start + tonumber(ARGV[7]) - 1)) do
  table.insert(out, redis.call('HGETALL', ITEM .. instance .. ':' .. idOf(member)))
end
return out
`);

/** ARGV: instance, '1' to pause or '' to resume. */
export const pauseOutbound = new LuaScript(`${PRELUDE}
local instance = ARGV[5]
if ARGV[6] == '1' then redis.call('SADD', KEYS[3], instance) else redis.call('SREM', KEYS[3], instance) end
for _, laneKey in ipairs(redis.call('SMEMBERS', LANES .. instance)) do refresh(laneKey, instance) end
return 1
`);

/** ARGV: instance. */
export const clearOutbound = new LuaScript(`${PRELUDE}
local instance = ARGV[5]
for _, member in ipairs(redis.call('ZRANGE', INST .. instance, 0, -1)) do redis.call('DEL', ITEM .. instance .. ':' .. idOf(member)) end
for _, laneKey in ipairs(redis.call('SMEMBERS', LANES .. instance)) do
  redis.call('DEL', LANE .. laneKey)
  redis.call('ZREM', KEYS[1], laneKey)
  redis.call('HDEL', KEYS[4], laneKey)
end
redis.call('DEL', LANES .. instance, INST .. instance)
redis.call('SREM', KEYS[3], instance)
return 1
`);
