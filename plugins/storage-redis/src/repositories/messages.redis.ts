import {
  MESSAGE_STATUS_RANK, messagePosition, type MessageRecord, type MessageRepository, type MessageStatus, type Page, type PageRequest, type Clock,
  type ScanPage, type ScanRequest, type StatusUpdate,
} from '@parley/core';
import { updateHashDocument, updateHashDocuments, type DocumentGuesses } from '../hash-document.js';
import { LuaScript } from '../lua-script.js';
import { compareIds } from '../record-fields.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from '../redis-keys.js';

/*
 * Layout per instance: a hash id → record JSON, a hash id → {c: chat, m: member} locating each
 * message in its chat's sorted set, one sorted set per chat (score: message timestamp, member
 * `<16-digit insertion seq>:<id>`, so equal timestamps order by insertion and ZREVRANGE reads newest
 * first), the set of chats that have messages, and a sorted set id → timestamp for retention.
 *
 * Common KEYS of the scripts: 1 records, 2 index, 3 chats set, 4 times. ARGV[1] is the chat set stem.
 */
const REMOVE_FUNCTION = `
local function remove(id)
  local located = redis.call('HGET', KEYS[2], id)
  if not located then return 0 end
  local at = cjson.decode(located)
  local chatKey = ARGV[1] .. at.c
  redis.call('ZREM', chatKey, at.m)
  if redis.call('EXISTS', chatKey) == 0 then redis.call('SREM', KEYS[3], at.c) end
  redis.call('ZREM', KEYS[4], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[1], id)
  return 1
end
`;

// KEYS: records, index, chats, times, seq. ARGV: stem, id, chat, timestamp, record JSON, retention cutoff ('' = none).
const upsertScript = new LuaScript(`${REMOVE_FUNCTION}
local id, chat, ts = ARGV[2], ARGV[3], ARGV[4]
local located = redis.call('HGET', KEYS[2], id)
local member
if located then
  local at = cjson.decode(located)
  member = at.m
  if at.c ~= chat then
    local oldKey = ARGV[1] .. at.c
    redis.call('ZREM', oldKey, member)
    if redis.call('EXISTS', oldKey) == 0 then redis.call('SREM', KEYS[3], at.c) end
  end
else
  member = string.format('%016d', redis.call('INCR', KEYS[5])) .. ':' .. id
end
redis.call('ZADD', ARGV[1] .. chat, ts, member)
redis.call('SADD', KEYS[3], chat)
redis.call('ZADD', KEYS[4], ts, id)
redis.call('HSET', KEYS[2], id, cjson.encode({c = chat, m = member}))
redis.call('HSET', KEYS[1], id, ARGV[5])
if ARGV[6] ~= '' then
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', '(' .. ARGV[6], 'LIMIT', 0, 1000)) do remove(old) end
end
return 1
`);

// KEYS: records, index, chats, times. ARGV: stem, ids…
const deleteScript = new LuaScript(`${REMOVE_FUNCTION}
local count = 0
for i = 2, #ARGV do count = count + remove(ARGV[i]) end
return count
`);

// KEYS: records, index, chats, times. ARGV: stem, chat.
const deleteChatScript = new LuaScript(`${REMOVE_FUNCTION}
local count = 0
for _, member in ipairs(redis.call('ZRANGE', ARGV[1] .. ARGV[2], 0, -1)) do count = count + remove(string.sub(member, 18)) end
return count
`);

// KEYS: records, index, chats, times, seq. ARGV: stem.
const clearScript = new LuaScript(`
for _, chat in ipairs(redis.call('SMEMBERS', KEYS[3])) do redis.call('DEL', ARGV[1] .. chat) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return 1
`);

// KEYS: chat set, records. ARGV: offset, limit. Answers {total, record…} read in one atomic step.
const pageScript = new LuaScript(`
local total = redis.call('ZCARD', KEYS[1])
local out = {total}
local offset, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
if limit > 0 and offset < total then
  for _, member in ipairs(redis.call('ZREVRANGE', KEYS[1], offset, offset + limit - 1)) do
    out[#out + 1] = redis.call('HGET', KEYS[2], string.sub(member, 18)) or ''
  end
end
return out
`);

// KEYS: a chat's set, records. ARGV: position score ('' = from the chat's start), position member, limit.
// Answers {member, score, record…} of the chat's next `limit` messages oldest first (the set's order),
// sought by the position member's rank, or (when it was deleted) by counting what sorts before it.
const scanChatScript = new LuaScript(`
local start = 0
if ARGV[1] ~= '' then
  local score = redis.call('ZSCORE', KEYS[1], ARGV[2])
  if score and tonumber(score) == tonumber(ARGV[1]) then
    start = redis.call('ZRANK', KEYS[1], ARGV[2]) + 1
  else
    start = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[1])
    -- Members start with their 16-digit insertion sequence, which compares alike in every collation.
    for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])) do
      if member <= ARGV[2] then start = start + 1 else break end
    end
  end
end
local out = {}
local page = redis.call('ZRANGE', KEYS[1], start, start + tonumber(ARGV[3]) - 1, 'WITHSCORES')
for i = 1, #page, 2 do
  out[#out + 1] = page[i]
  out[#out + 1] = page[i + 1]
  out[#out + 1] = redis.call('HGET', KEYS[2], string.sub(page[i], 18)) or ''
end
return out
`);

const DAY_SECONDS = 86_400;

/**
 * Message history. With `retentionDays` > 0, every write of an instance also deletes (up to 1,000 at
 * a time) that instance's messages whose timestamp is older than the retention window, so history is
 * trimmed by message time without a background job.
 */
export class RedisMessageRepository implements MessageRepository {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly retentionDays: number,
    private readonly clock: Clock,
    private readonly guesses: DocumentGuesses,
  ) {}

  private scriptKeys(instance: string): string[] {
    const k = this.keys;
    return [k.messages(instance), k.messageIndex(instance), k.messageChats(instance), k.messageTimes(instance), k.messageSeq(instance)];
  }

  async upsert(instance: string, record: MessageRecord): Promise<void> {
    const cutoff = this.retentionDays > 0 ? String(Math.floor(this.clock.now() / 1000) - this.retentionDays * DAY_SECONDS) : '';
    const json = JSON.stringify(record);
    const key = this.keys.messages(instance);
    // Forgotten first: should the script fail or time out, no guess claims what may not be stored.
    this.guesses.forget(key, record.key.id);
    await this.connection.run((client) => upsertScript.run(client, this.scriptKeys(instance), [
      this.keys.chatMessagesStem(instance), record.key.id, record.key.remoteJid, timestampScore(record), json, cutoff,
    ]));
    // The status receipts that follow a send then update the record in one round trip.
    this.guesses.remember(key, record.key.id, json);
  }

  async get(instance: string, id: string): Promise<MessageRecord | null> {
    const key = this.keys.messages(instance);
    const raw = await this.connection.run((client) => client.hGet(key, id));
    this.guesses.remember(key, id, raw);
    return raw == null ? null : (JSON.parse(raw) as MessageRecord);
  }

  async setStatus(instance: string, id: string, status: MessageStatus): Promise<boolean> {
    const stored = await this.connection.run((client) => updateHashDocument<MessageRecord>(client, this.keys.messages(instance), id, statusChange([status]), this.guesses));
    return stored !== null;
  }

  /** Every update in one compare-and-set script (the statuses of one message applied in order first). */
  async setStatuses(instance: string, updates: readonly StatusUpdate[]): Promise<boolean[]> {
    const byId = new Map<string, MessageStatus[]>();
    for (const { id, status } of updates) byId.set(id, [...(byId.get(id) ?? []), status]);
    const ids = [...byId.keys()];
    const stored = await this.connection.run((client) => updateHashDocuments<MessageRecord>(client, this.keys.messages(instance),
      ids.map((id) => ({ field: id, change: statusChange(byId.get(id)!) })), this.guesses));
    const exists = new Map(ids.map((id, i) => [id, stored[i] !== null]));
    return updates.map(({ id }) => exists.get(id)!);
  }

  async listByChat(instance: string, chatJid: string, page: PageRequest): Promise<Page<MessageRecord>> {
    const offset = Math.max(0, (page.page - 1) * page.limit);
    const reply = await this.connection.run((client) =>
      pageScript.run(client, [this.keys.chatMessages(instance, chatJid), this.keys.messages(instance)], [offset, page.limit])) as [number, ...string[]];
    const [total, ...records] = reply;
    return { items: records.filter((raw) => raw !== '').map((raw) => JSON.parse(raw) as MessageRecord), total };
  }

  async delete(instance: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return await this.connection.run((client) =>
      deleteScript.run(client, this.scriptKeys(instance).slice(0, 4), [this.keys.chatMessagesStem(instance), ...ids])) as number;
  }

  async deleteChat(instance: string, chatJid: string): Promise<number> {
    return await this.connection.run((client) =>
      deleteChatScript.run(client, this.scriptKeys(instance).slice(0, 4), [this.keys.chatMessagesStem(instance), chatJid])) as number;
  }

  /**
   * Chats in code-unit order (the instance's set of chats, sorted here), each oldest first: its sorted
   * set's order, sought by the position's rank, so a page costs the page, not the history.
   */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<MessageRecord>> {
    const at = messagePosition.parse(request.after);
    const chats = (await this.connection.run((client) => client.sMembers(this.keys.messageChats(instance))))
      .filter((chat) => !at || chat >= at[0]).sort(compareIds);
    const items: MessageRecord[] = [];
    let next: string | undefined;
    for (const chat of chats) {
      const from = at && chat === at[0] ? [String(at[1]), String(at[2])] : ['', ''];
      const reply = await this.connection.run((client) => scanChatScript.run(client, [this.keys.chatMessages(instance, chat), this.keys.messages(instance)],
        [...from, request.limit - items.length])) as string[];
      for (let i = 0; i + 2 < reply.length; i += 3) {
        if (reply[i + 2] !== '') items.push(JSON.parse(reply[i + 2]!) as MessageRecord);
        next = messagePosition.of(chat, Number(reply[i + 1]), reply[i]!);
      }
      if (items.length >= request.limit) return { items, ...(next === undefined ? {} : { next }) };
    }
    return { items };
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((client) => clearScript.run(client, this.scriptKeys(instance), [this.keys.chatMessagesStem(instance)]));
  }
}

/**
 * The change of a record by status updates applied in order: each moves the status forward by rank
 * (`ERROR` always applies); `undefined` (nothing to write) when the message is absent or none moved it.
 */
function statusChange(statuses: readonly MessageStatus[]): (current: MessageRecord | null) => MessageRecord | undefined {
  return (current) => {
    if (!current) return undefined;
    let status = current.status;
    for (const next of statuses) if (next === 'ERROR' || MESSAGE_STATUS_RANK[next] > MESSAGE_STATUS_RANK[status]) status = next;
    return status === current.status ? undefined : { ...current, status };
  };
}

/** Sort score of a record: its Unix-seconds timestamp, 0 when the text is not a number. */
function timestampScore(record: MessageRecord): string {
  const seconds = Number(record.messageTimestamp);
  return Number.isFinite(seconds) ? String(seconds) : '0';
}
