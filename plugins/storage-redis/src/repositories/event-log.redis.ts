import { ulidFloor, type EventLog, type EventLogQuery, type LoggedEvent } from '@parley/core';
import { LuaScript } from '../lua-script.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from '../redis-keys.js';

/**
 * Lua function `appendEvents(all, data, stem, from, to)`: appends the (id, instance, entry JSON) triples
 * of ARGV[from..to] to the log whose id set is `all`, entries hash `data` and per-instance id sets
 * `stem .. instance`. HSETNX makes a repeated id a no-op. Shared with the delivery queue's enqueue,
 * which logs events in the same script as their deliveries.
 */
export const APPEND_EVENTS_LUA = `
local function appendEvents(all, data, stem, from, to)
  for i = from, to, 3 do
    if redis.call('HSETNX', data, ARGV[i], ARGV[i + 2]) == 1 then
      redis.call('ZADD', all, 0, ARGV[i])
      redis.call('ZADD', stem .. ARGV[i + 1], 0, ARGV[i])
    end
  end
end
`;

/** The ARGV triples {@link APPEND_EVENTS_LUA} reads, appended to `args`. */
export function pushEventArgs(args: (string | number)[], entries: readonly LoggedEvent[]): void {
  for (const e of entries) args.push(e.id, e.instance, JSON.stringify({ id: e.id, instance: e.instance, type: e.type, at: e.at, event: e.event }));
}

// KEYS: all ids, entries hash. ARGV: per-instance stem, then (id, instance, entry JSON) triples.
const appendScript = new LuaScript(`${APPEND_EVENTS_LUA}
appendEvents(KEYS[1], KEYS[2], ARGV[1], 2, #ARGV)
return 1
`);

// KEYS: all ids, entries hash. ARGV: per-instance stem, exclusive upper id bound, batch size.
// Deletes at most one batch of the oldest ids; the caller repeats until it answers less.
const purgeScript = new LuaScript(`
local ids = redis.call('ZRANGEBYLEX', KEYS[1], '-', '(' .. ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  local entry = redis.call('HGET', KEYS[2], id)
  if entry then
    redis.call('ZREM', ARGV[1] .. cjson.decode(entry).instance, id)
    redis.call('HDEL', KEYS[2], id)
  end
  redis.call('ZREM', KEYS[1], id)
end
return #ids
`);

// KEYS: all ids, entries hash, the instance's ids.
const clearScript = new LuaScript(`
local ids = redis.call('ZRANGE', KEYS[3], 0, -1)
for i = 1, #ids, 500 do
  local chunk = { unpack(ids, i, math.min(i + 499, #ids)) }
  redis.call('HDEL', KEYS[2], unpack(chunk))
  redis.call('ZREM', KEYS[1], unpack(chunk))
end
redis.call('DEL', KEYS[3])
return #ids
`);

/** Ids deleted per purge script run: bounds how long one run holds Redis. */
const PURGE_BATCH = 1000;

/**
 * The event log in Redis: the ids of every entry in one sorted set and each instance's in its own
 * (all scores 0, so they sort by the id's text, which is time order), the entries in one hash.
 * Several servers sharing the Redis append to the same log.
 */
export class RedisEventLog implements EventLog {
  constructor(private readonly connection: RedisConnection, private readonly keys: RedisKeys) {}

  async append(entries: LoggedEvent[]): Promise<void> {
    if (entries.length === 0) return;
    const args: string[] = [this.keys.eventsOfStem];
    pushEventArgs(args, entries);
    await this.connection.run((client) => appendScript.run(client, [this.keys.eventsAll, this.keys.eventData], args));
  }

  async read({ instance, after, limit }: EventLogQuery): Promise<LoggedEvent[]> {
    const set = instance === undefined ? this.keys.eventsAll : this.keys.eventsOf(instance);
    return this.connection.run(async (client) => {
      const ids = await client.zRangeByLex(set, after === undefined ? '-' : `(${after}`, '+', { LIMIT: { offset: 0, count: limit } });
      if (ids.length === 0) return [];
      const raw = await client.hmGet(this.keys.eventData, ids);
      // An id purged between the two reads has no entry any more: it is past retention, left out.
      return raw.filter((entry): entry is string => typeof entry === 'string').map((entry) => JSON.parse(entry) as LoggedEvent);
    });
  }

  async purge(before: number): Promise<number> {
    const bound = ulidFloor(before);
    let total = 0;
    for (;;) {
      const count = Number(await this.connection.run((client) =>
        purgeScript.run(client, [this.keys.eventsAll, this.keys.eventData], [this.keys.eventsOfStem, bound, PURGE_BATCH])));
      total += count;
      if (count < PURGE_BATCH) return total;
    }
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((client) => clearScript.run(client, [this.keys.eventsAll, this.keys.eventData, this.keys.eventsOf(instance)], []));
  }
}
