import { LuaScript } from '../lua-script.js';
import { APPEND_EVENTS_LUA } from './event-log.redis.js';

/*
 * The delivery queue's Lua scripts. Each runs atomically, so a claim, an ack or a failure is one
 * indivisible step: a delivery is never leased to two workers at once, and counters move together
 * with the data they count.
 *
 * Layout: a delivery is a hash (its fields, `attempts`, `nextAttemptAt`, optional `lastError`,
 * `lastStatus`, `leaseUntil`, `deadAt`, its `lane` and a 16-digit enqueue `seq`); a lane is a list of
 * delivery ids in enqueue order; the `due` sorted set scores each non-empty lane by when its head can
 * next be claimed (its lease end while leased, else its `nextAttemptAt`), member `<head seq>:<lane>` so
 * lanes due at the same time are claimed in enqueue order of their heads. Dead letters leave their
 * lane and sit in per-instance and global sorted sets by dead time, member `<seq>:<id>` so letters
 * that died in the same millisecond keep enqueue order.
 *
 * KEYS: 1 due lanes, 2 enqueue sequence, 3 all dead letters, 4 due member of each lane (the enqueue adds 5, 6).
 * ARGV 1–5: stems of delivery hashes, lanes, lane sets per instance, dead letters per instance,
 * stats per instance; operation arguments start at ARGV[6].
 */
const PRELUDE = `
local ITEM, LANE, LANES, DEAD, STATS = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local function setDue(lane, score, seq)
  local member = seq .. ':' .. lane
  local old = redis.call('HGET', KEYS[4], lane)
  if old and old ~= member then redis.call('ZREM', KEYS[1], old) end
  redis.call('ZADD', KEYS[1], score, member)
  redis.call('HSET', KEYS[4], lane, member)
end
local function unsetDue(lane)
  local old = redis.call('HGET', KEYS[4], lane)
  if old then
    redis.call('ZREM', KEYS[1], old)
    redis.call('HDEL', KEYS[4], lane)
  end
end
local function refresh(lane, instance)
  local head = redis.call('LINDEX', LANE .. lane, 0)
  if not head then
    unsetDue(lane)
    redis.call('SREM', LANES .. instance, lane)
    return
  end
  local due = redis.call('HMGET', ITEM .. head, 'leaseUntil', 'nextAttemptAt', 'seq')
  setDue(lane, due[1] or due[2], due[3])
end
local function countResponse(stats, ms)
  if ms ~= '' then
    redis.call('HINCRBYFLOAT', stats, 'responseTimeSum', ms)
    redis.call('HINCRBY', stats, 'responseCount', 1)
  end
end
local function ack(id, ms)
  local item = ITEM .. id
  local f = redis.call('HMGET', item, 'instance', 'lane', 'deadAt')
  if not f[1] or f[3] then return 0 end
  redis.call('LREM', LANE .. f[2], 1, id)
  redis.call('DEL', item)
  refresh(f[2], f[1])
  local stats = STATS .. f[1]
  redis.call('HINCRBY', stats, 'sent', 1)
  redis.call('HINCRBY', stats, 'pending', -1)
  countResponse(stats, ms)
  return 1
end
local function fail(id, nextAt, err, status, ms, deadAt)
  local item = ITEM .. id
  local f = redis.call('HMGET', item, 'instance', 'lane', 'deadAt', 'seq')
  if not f[1] or f[3] then return 0 end
  local stats = STATS .. f[1]
  redis.call('HINCRBY', item, 'attempts', 1)
  redis.call('HSET', item, 'lastError', err)
  if status ~= '' then redis.call('HSET', item, 'lastStatus', status) else redis.call('HDEL', item, 'lastStatus') end
  redis.call('HDEL', item, 'leaseUntil')
  redis.call('HINCRBY', stats, 'failed', 1)
  countResponse(stats, ms)
  if nextAt ~= '' then
    redis.call('HSET', item, 'nextAttemptAt', nextAt)
  else
    local member = f[4] .. ':' .. id
    redis.call('LREM', LANE .. f[2], 1, id)
    redis.call('HSET', item, 'deadAt', deadAt)
    redis.call('ZADD', DEAD .. f[1], deadAt, member)
    redis.call('ZADD', KEYS[3], deadAt, member)
    redis.call('HINCRBY', stats, 'pending', -1)
  end
  refresh(f[2], f[1])
  return 1
end
`;

function script(body: string): LuaScript {
  return new LuaScript(PRELUDE + body);
}

/**
 * KEYS 5, 6: the event log's id set and entries hash. ARGV 6: the log's per-instance stem, 7: the
 * number of event-log triples that follow (see `APPEND_EVENTS_LUA`), then those triples, then groups of
 * id, instance, url, format, eventId, eventType, body, createdAt, lane. The events are logged in the
 * same atomic step as their deliveries are queued.
 */
export const enqueueScript = script(`${APPEND_EVENTS_LUA}
local first = 8 + 3 * tonumber(ARGV[7])
appendEvents(KEYS[5], KEYS[6], ARGV[6], 8, first - 1)
local added = 0
for i = first, #ARGV, 9 do
  local id, instance, createdAt, lane = ARGV[i], ARGV[i + 1], ARGV[i + 7], ARGV[i + 8]
  local item = ITEM .. id
  if redis.call('EXISTS', item) == 0 then
    local seq = string.format('%016d', redis.call('INCR', KEYS[2]))
    redis.call('HSET', item, 'id', id, 'instance', instance, 'url', ARGV[i + 2], 'format', ARGV[i + 3],
      'eventId', ARGV[i + 4], 'eventType', ARGV[i + 5], 'body', ARGV[i + 6], 'createdAt', createdAt,
      'attempts', 0, 'nextAttemptAt', createdAt, 'lane', lane, 'seq', seq)
    if redis.call('RPUSH', LANE .. lane, id) == 1 then setDue(lane, createdAt, seq) end
    redis.call('SADD', LANES .. instance, lane)
    redis.call('HINCRBY', STATS .. instance, 'pending', 1)
    added = added + 1
  end
end
return added
`);

/**
 * ARGV 6: now, 7: limit, 8: lease end, 9: deliveries per lane. Answers the HGETALL of every leased head,
 * each followed by those of the due deliveries behind it (up to the per-lane bound; they ride on its lease).
 */
export const claimScript = script(`
local out = {}
local now = tonumber(ARGV[6])
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[6], 'LIMIT', 0, tonumber(ARGV[7]))) do
  local lane = string.sub(member, 18)
  local ids = redis.call('LRANGE', LANE .. lane, 0, tonumber(ARGV[9]) - 1)
  if ids[1] then
    redis.call('HSET', ITEM .. ids[1], 'leaseUntil', ARGV[8])
    redis.call('ZADD', KEYS[1], ARGV[8], member)
    out[#out + 1] = redis.call('HGETALL', ITEM .. ids[1])
    for i = 2, #ids do
      if tonumber(redis.call('HGET', ITEM .. ids[i], 'nextAttemptAt')) > now then break end
      out[#out + 1] = redis.call('HGETALL', ITEM .. ids[i])
    end
  else
    unsetDue(lane)
  end
end
return out
`);

/** ARGV 6: id, 7: response time. Answers 1, or 0 for an unknown or dead delivery (nothing counted). */
export const ackScript = script(`return ack(ARGV[6], ARGV[7])`);

/**
 * ARGV 6: id, 7: next attempt ('' dead-letters it), 8: error, 9: status or '', 10: response time or '',
 * 11: dead time. Answers 1, or 0 for an unknown or dead delivery.
 */
export const failScript = script(`return fail(ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11])`);

/**
 * ARGV 6: dead time, 7…: groups of outcome ('sent', 'failed', 'released'), id, next attempt, error,
 * status, response time (as the ack and fail scripts take them; '' where unused). Answers how many it applied.
 */
export const completeScript = script(`
local applied = 0
for i = 7, #ARGV, 6 do
  local kind, id = ARGV[i], ARGV[i + 1]
  if kind == 'sent' then
    applied = applied + ack(id, ARGV[i + 5])
  elseif kind == 'failed' then
    applied = applied + fail(id, ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[6])
  else
    local item = ITEM .. id
    local f = redis.call('HMGET', item, 'instance', 'lane', 'deadAt')
    if f[1] and not f[3] then
      redis.call('HDEL', item, 'leaseUntil')
      refresh(f[2], f[1])
      applied = applied + 1
    end
  end
end
return applied
`);

/**
 * ARGV 6: target url, 7: now. Makes the postponed, unleased heads of the target's lanes due now (no
 * attempt counted): a walk over the lanes due later, when a target comes back. Answers how many.
 */
export const expediteScript = script(`
local count = 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[7], '+inf')) do
  local lane = string.sub(member, 18)
  local head = redis.call('LINDEX', LANE .. lane, 0)
  if head then
    local f = redis.call('HMGET', ITEM .. head, 'url', 'leaseUntil', 'seq')
    if f[1] == ARGV[6] and not f[2] then
      redis.call('HSET', ITEM .. head, 'nextAttemptAt', ARGV[7])
      setDue(lane, ARGV[7], f[3])
      count = count + 1
    end
  end
end
return count
`);

/** ARGV 6: instance, 7: offset, 8: limit. Answers {total, HGETALL…}. */
export const deadLettersScript = script(`
local key = DEAD .. ARGV[6]
local total = redis.call('ZCARD', key)
local out = {total}
local offset, limit = tonumber(ARGV[7]), tonumber(ARGV[8])
if limit > 0 and offset < total then
  for _, member in ipairs(redis.call('ZRANGE', key, offset, offset + limit - 1)) do
    out[#out + 1] = redis.call('HGETALL', ITEM .. string.sub(member, 18))
  end
end
return out
`);

/** ARGV 6: instance, 7: now, 8: 'all' or 'ids', 9…: ids. Answers how many moved back. */
export const redeliverScript = script(`
local instance, now = ARGV[6], ARGV[7]
local deadKey = DEAD .. instance
local members = {}
if ARGV[8] == 'all' then
  members = redis.call('ZRANGE', deadKey, 0, -1)
else
  for i = 9, #ARGV do
    local seq = redis.call('HGET', ITEM .. ARGV[i], 'seq')
    if seq and redis.call('ZSCORE', deadKey, seq .. ':' .. ARGV[i]) then members[#members + 1] = seq .. ':' .. ARGV[i] end
  end
end
for _, member in ipairs(members) do
  local id = string.sub(member, 18)
  local item = ITEM .. id
  local lane = redis.call('HGET', item, 'lane')
  local seq = string.sub(member, 1, 16)
  redis.call('ZREM', deadKey, member)
  redis.call('ZREM', KEYS[3], member)
  redis.call('HDEL', item, 'deadAt', 'leaseUntil')
  redis.call('HSET', item, 'attempts', 0, 'nextAttemptAt', now)
  if redis.call('RPUSH', LANE .. lane, id) == 1 then setDue(lane, now, seq) end
  redis.call('SADD', LANES .. instance, lane)
  redis.call('HINCRBY', STATS .. instance, 'pending', 1)
end
return #members
`);

/** ARGV 6: instance, 7…: dead-letter ids. Answers how many it deleted. */
export const discardScript = script(`
local deadKey = DEAD .. ARGV[6]
local count = 0
for i = 7, #ARGV do
  local item = ITEM .. ARGV[i]
  local seq = redis.call('HGET', item, 'seq')
  local member = seq and (seq .. ':' .. ARGV[i])
  if member and redis.call('ZSCORE', deadKey, member) then
    redis.call('ZREM', deadKey, member)
    redis.call('ZREM', KEYS[3], member)
    redis.call('DEL', item)
    count = count + 1
  end
end
return count
`);

/** ARGV 6: before, 7: batch size. Answers how many it deleted (at most the batch size). */
export const purgeScript = script(`
local members = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[6], 'LIMIT', 0, tonumber(ARGV[7]))
for _, member in ipairs(members) do
  local item = ITEM .. string.sub(member, 18)
  local instance = redis.call('HGET', item, 'instance')
  if instance then redis.call('ZREM', DEAD .. instance, member) end
  redis.call('DEL', item)
  redis.call('ZREM', KEYS[3], member)
end
return #members
`);

/** ARGV 6: instance. */
export const clearScript = script(`
local instance = ARGV[6]
for _, lane in ipairs(redis.call('SMEMBERS', LANES .. instance)) do
  for _, id in ipairs(redis.call('LRANGE', LANE .. lane, 0, -1)) do redis.call('DEL', ITEM .. id) end
  redis.call('DEL', LANE .. lane)
  unsetDue(lane)
end
for _, member in ipairs(redis.call('ZRANGE', DEAD .. instance, 0, -1)) do
  redis.call('DEL', ITEM .. string.sub(member, 18))
  redis.call('ZREM', KEYS[3], member)
end
redis.call('DEL', LANES .. instance, DEAD .. instance, STATS .. instance)
return 1
`);
