import { LuaScript } from '../lua-script.js';

// Key names are computed in the scripts from the stem (ARGV), as elsewhere in this back end (not Redis Cluster).

/** KEYS: node key, last-entry key, nodes set. ARGV: id, incarnation, JSON, ttl. 0 when another incarnation holds the id. */
export const joinScript = new LuaScript(`
local current = redis.call('GET', KEYS[1])
if current then
  local ok, doc = pcall(cjson.decode, current)
  if ok and doc.incarnation ~= ARGV[2] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
redis.call('SET', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
`);

/** KEYS: node key, last-entry key, nodes set. ARGV: id, incarnation. */
export const leaveScript = new LuaScript(`
local current = redis.call('GET', KEYS[1]) or redis.call('GET', KEYS[2])
if current then
  local ok, doc = pcall(cjson.decode, current)
  if ok and doc.incarnation ~= ARGV[2] then return 0 end
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
`);

/**
 * Forgets a dead node last heard of before ARGV[2] (ms): nothing while its live entry exists or its
 * last entry is newer; its remaining held instances are offered (ZADD NX at ARGV[3]) so they stay
 * findable as orphans. KEYS: node key, last-entry key, nodes set, held set, unowned zset. ARGV: id, before, now.
 */
export const pruneScript = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local last = redis.call('GET', KEYS[2])
if last then
  local ok, doc = pcall(cjson.decode, last)
  if ok and tonumber(doc.lastHeartbeat or 0) >= tonumber(ARGV[2]) then return 0 end
end
for _, instance in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  redis.call('ZADD', KEYS[5], 'NX', ARGV[3], instance)
end
redis.call('DEL', KEYS[2], KEYS[4])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
`);

/**
 * Takes a free lease with a new fencing token (SET NX semantics). The token counter starts from the
 * caller's clock in milliseconds when Redis lost it (restart without persistence), so tokens keep growing
 * (they stay below 10^14: Lua formats larger numbers in exponent form).
 * With `honourMove` (ARGV[6] = 1), an instance an admin or a rebalance asked to move to another node is left to that node.
 * KEYS: lease, fence, fence-seq, holder hash, unowned zset, move key. ARGV: stem, instance, node, ttl, seed, honourMove.
 */
export const acquireScript = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if ARGV[6] == '1' then
  local target = redis.call('GET', KEYS[6])
  if target and target ~= ARGV[3] then return 0 end
end
if redis.call('EXISTS', KEYS[3]) == 0 then redis.call('SET', KEYS[3], ARGV[5]) end
local token = redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[1], ARGV[3] .. '|' .. token, 'PX', ARGV[4])
redis.call('SET', KEYS[2], token)
local previous = redis.call('HGET', KEYS[4], ARGV[2])
if previous and previous ~= ARGV[3] then redis.call('SREM', ARGV[1] .. 'held:' .. previous, ARGV[2]) end
redis.call('HSET', KEYS[4], ARGV[2], ARGV[3])
redis.call('SADD', ARGV[1] .. 'held:' .. ARGV[3], ARGV[2])
redis.call('ZREM', KEYS[5], ARGV[2])
if redis.call('GET', KEYS[6]) == ARGV[3] then redis.call('DEL', KEYS[6]) end
return token
`);

/**
 * Extends leases still held with the same token; a lease that expired with nobody taking it since
 * (the fence unchanged) is set again. Answers the instances lost. ARGV: stem, node, ttl, then instance, token pairs.
 */
export const renewScript = new LuaScript(`
local lost = {}
for i = 4, #ARGV, 2 do
  local instance, token = ARGV[i], ARGV[i + 1]
  local lease = ARGV[1] .. 'lease:' .. instance
  local value = ARGV[2] .. '|' .. token
  local current = redis.call('GET', lease)
  if current == value then
    redis.call('PEXPIRE', lease, ARGV[3])
  elseif not current and redis.call('GET', ARGV[1] .. 'fence:' .. instance) == token then
    redis.call('SET', lease, value, 'PX', ARGV[3])
  else
    lost[#lost + 1] = instance
  end
end
return lost
`);

/** Releases leases held with the same token and offers the instances to the other nodes. ARGV: stem, node, now, then instance, token pairs. */
export const releaseScript = new LuaScript(`
for i = 4, #ARGV, 2 do
  local instance, token = ARGV[i], ARGV[i + 1]
  local lease = ARGV[1] .. 'lease:' .. instance
  if redis.call('GET', lease) == ARGV[2] .. '|' .. token then
    redis.call('DEL', lease)
    redis.call('SREM', ARGV[1] .. 'held:' .. ARGV[2], instance)
    redis.call('HDEL', ARGV[1] .. 'holder', instance)
    redis.call('ZADD', ARGV[1] .. 'unowned', 'NX', ARGV[3], instance)
  end
end
return 1
`);

/** Forgets a deleted instance. KEYS: lease, holder, unowned, move. ARGV: stem, instance. */
export const forgetScript = new LuaScript(`
local holder = redis.call('HGET', KEYS[2], ARGV[2])
if holder then redis.call('SREM', ARGV[1] .. 'held:' .. holder, ARGV[2]) end
redis.call('DEL', KEYS[1], KEYS[4])
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
return 1
`);
