import { ServiceUnavailableError } from '@parley/core';
import { LuaScript } from './lua-script.js';
import type { RedisClient } from './redis-connection.js';

/**
 * Writes ARGV[4] into field ARGV[1] only if the field still holds ARGV[3] (or is still absent when
 * ARGV[2] is 0); with ARGV[5] = '1' it only checks and writes nothing. Answers 1 when the field held
 * what was expected, else what it holds now: its text, or 0 when absent, so a retry needs no read.
 */
const compareAndSet = new LuaScript(`
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  if current ~= ARGV[3] then return current or 0 end
elseif current then
  return current
end
if ARGV[5] ~= '1' then redis.call('HSET', KEYS[1], ARGV[1], ARGV[4]) end
return 1
`);

/** {@link compareAndSet} over several fields of one hash: ARGV is five members per field, the answer one entry per field. */
const compareAndSetMany = new LuaScript(`
local out = {}
for i = 1, #ARGV, 5 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  local held
  if ARGV[i + 1] == '1' then held = current == ARGV[i + 2] else held = not current end
  if held then
    if ARGV[i + 4] ~= '1' then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 3]) end
    out[#out + 1] = 1
  else
    out[#out + 1] = current or 0
  end
end
return out
`);

/** Retries of an optimistic update before giving up; only heavy contention on one document exhausts them. */
const MAX_ATTEMPTS = 50;

/** Documents remembered per process; at ~1 KiB each, a few MiB at most. */
const REMEMBERED = 4096;

/**
 * The text this process last read or wrote for recently touched hash fields: a guess of what Redis
 * holds, so that a read-modify-write costs one round trip (a compare-and-set against the guess)
 * instead of two (read, then compare-and-set). It is never trusted: every update compares it with
 * Redis atomically, and a wrong guess (another server wrote, a script deleted) costs one retry with
 * the value Redis answered. Bounded: the oldest entries are dropped first.
 */
export class DocumentGuesses {
  private readonly texts = new Map<string, string | null>();

  constructor(private readonly limit = REMEMBERED) {}

  /** The remembered text (null: known absent), or undefined when nothing is remembered. */
  get(key: string, field: string): string | null | undefined {
    return this.texts.get(`${key}\u0000${field}`);
  }

  remember(key: string, field: string, text: string | null): void {
    const name = `${key}\u0000${field}`;
    this.texts.delete(name);
    this.texts.set(name, text);
    if (this.texts.size > this.limit) this.evict();
  }

  /**
   * Drops the oldest quarter in one pass: a Map keeps deleted entries as holes until it rehashes, so
   * dropping one oldest entry per write would scan ever more holes to find the next.
   */
  private evict(): void {
    let drop = this.texts.size - (this.limit - Math.floor(this.limit / 4));
    for (const name of this.texts.keys()) {
      if (drop-- <= 0) break;
      this.texts.delete(name);
    }
  }

  forget(key: string, field: string): void {
    this.texts.delete(`${key}\u0000${field}`);
  }
}

/**
 * Read-modify-write of one JSON document stored in a hash field, made atomic by compare-and-set:
 * `change` computes the next document from the current one (null when absent) and runs again if
 * another writer got in between. `change` answers `undefined` to leave the document as it is (the
 * document it saw is then confirmed against Redis). Answers the document as stored afterwards.
 * With `guesses`, the first attempt starts from the remembered text instead of reading it first.
 */
export async function updateHashDocument<T>(
  client: RedisClient,
  key: string,
  field: string,
  change: (current: T | null) => T | undefined,
  guesses?: DocumentGuesses,
): Promise<T | null> {
  const guess = guesses?.get(key, field);
  let raw: string | null = guess === undefined ? await client.hGet(key, field) : guess;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = raw == null ? null : (JSON.parse(raw) as T);
    const next = change(current);
    // A document read just now needs no confirmation; a guessed one does.
    if (next === undefined && (attempt > 0 || guess === undefined)) return current;
    const json = next === undefined ? '' : JSON.stringify(next);
    const answer = await compareAndSet.run(client, [key], [field, raw == null ? 0 : 1, raw ?? '', json, next === undefined ? 1 : 0]);
    if (answer === 1) {
      if (next === undefined) return current;
      guesses?.remember(key, field, json);
      // Answered from the JSON written, so the caller never shares objects with what is stored.
      return JSON.parse(json) as T;
    }
    raw = answer === 0 ? null : (answer as string);
    guesses?.remember(key, field, raw);
  }
  throw new ServiceUnavailableError('storage update kept conflicting with concurrent writers; retry');
}

/** One field of {@link updateHashDocuments}: its name and how its document changes. */
export interface FieldChange<T> {
  field: string;
  change: (current: T | null) => T | undefined;
}

/**
 * {@link updateHashDocument} over several distinct fields of one hash in one round trip: one
 * compare-and-set script for all of them, after one HMGET for the fields no guess is remembered for.
 * A field another writer changed in between is retried alone with {@link updateHashDocument}.
 * Answers each document as stored afterwards, in the order given.
 */
export async function updateHashDocuments<T>(client: RedisClient, key: string, fields: readonly FieldChange<T>[], guesses: DocumentGuesses): Promise<(T | null)[]> {
  const raws = fields.map(({ field }) => guesses.get(key, field));
  const unknown = fields.flatMap(({ field }, i) => (raws[i] === undefined ? [i] : []));
  const guessed = raws.map((raw) => raw !== undefined);
  if (unknown.length) {
    const read = await client.hmGet(key, unknown.map((i) => fields[i]!.field));
    unknown.forEach((i, n) => (raws[i] = read[n] ?? null));
  }
  const results: (T | null)[] = [];
  const planned: { i: number; json: string | null }[] = [];
  const args: (string | number)[] = [];
  fields.forEach(({ field, change }, i) => {
    const raw = raws[i] ?? null;
    const current = raw == null ? null : (JSON.parse(raw) as T);
    const next = change(current);
    results[i] = current;
    // A document read just now needs no confirmation; a guessed one does.
    if (next === undefined && !guessed[i]) return;
    const json = next === undefined ? null : JSON.stringify(next);
    planned.push({ i, json });
    args.push(field, raw == null ? 0 : 1, raw ?? '', json ?? '', json === null ? 1 : 0);
  });
  if (!planned.length) return results;
  const answers = await compareAndSetMany.run(client, [key], args) as (number | string)[];
  for (const [n, { i, json }] of planned.entries()) {
    const { field, change } = fields[i]!;
    if (answers[n] === 1) {
      if (json !== null) {
        guesses.remember(key, field, json);
        results[i] = JSON.parse(json) as T;
      }
      continue;
    }
    guesses.remember(key, field, answers[n] === 0 ? null : (answers[n] as string));
    results[i] = await updateHashDocument(client, key, field, change, guesses);
  }
  return results;
}
