import { createHash, randomBytes, randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const HEX = '0123456789ABCDEF';

/**
 * Random bytes for ids, drawn from the system's CSPRNG 4 KiB at a time: one `randomFillSync` per
 * few hundred ids instead of one per id (that call, not the bytes, was the cost on the send path).
 * Every byte is handed out once.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** The offset in {@link pool} of `count` fresh random bytes (count ≤ 64). */
function take(count: number): number {
  if (poolAt + count > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += count;
  return at;
}

let lastTime = -1;
/** The ten time characters of {@link lastTime}: they change once per millisecond, not per id. */
let lastTimeText = '';
/** The 80 random bits of the last ULID, as four 20-bit integers (most significant first): bit operations stay on small integers. */
const random = [0, 0, 0, 0];
const MASK_20 = 0xfffff;

/** Four Crockford base32 characters of a 20-bit integer. */
function base32of20(chunk: number): string {
  return CROCKFORD[(chunk >>> 15) & 31]! + CROCKFORD[(chunk >>> 10) & 31]! + CROCKFORD[(chunk >>> 5) & 31]! + CROCKFORD[chunk & 31]!;
}

/** Ten Crockford base32 characters of a millisecond time (48 bits). */
function timeText(now: number): string {
  let text = '';
  for (let i = 0; i < 10; i++) {
    text = CROCKFORD[now % 32]! + text;
    now = Math.floor(now / 32);
  }
  return text;
}

/**
 * A ULID: 26 characters, lexicographically ordered by creation time, monotonic within a process
 * (within one millisecond the random part counts up). Used for event and delivery ids. `now` is
 * Unix ms from the caller's clock, so ids follow controlled time in tests.
 */
export function newUlid(now: number): string {
  if (now === lastTime) {
    for (let i = 3; i >= 0; i--) {
      random[i] = (random[i]! + 1) & MASK_20;
      if (random[i] !== 0) break;
    }
  } else {
    lastTime = now;
    lastTimeText = timeText(now);
    const at = take(10);
    // 80 bits = 10 bytes, split into four 20-bit chunks.
    random[0] = (pool[at]! << 12) | (pool[at + 1]! << 4) | (pool[at + 2]! >>> 4);
    random[1] = ((pool[at + 2]! & 15) << 16) | (pool[at + 3]! << 8) | pool[at + 4]!;
    random[2] = (pool[at + 5]! << 12) | (pool[at + 6]! << 4) | (pool[at + 7]! >>> 4);
    random[3] = ((pool[at + 7]! & 15) << 16) | (pool[at + 8]! << 8) | pool[at + 9]!;
  }
  return lastTimeText + base32of20(random[0]!) + base32of20(random[1]!) + base32of20(random[2]!) + base32of20(random[3]!);
}

/** A message id in the main channel's style: `3EB0` followed by 18 upper-case hex characters. */
export function newMessageId(): string {
  const at = take(9);
  let id = '3EB0';
  for (let i = at; i < at + 9; i++) id += HEX[pool[i]! >> 4]! + HEX[pool[i]! & 15]!;
  return id;
}

/**
 * A message id in the style of {@link newMessageId} that is the same for the same `seed` (its SHA-256):
 * a send made under an idempotency key gets the id of its key, so running it twice queues and sends
 * one message (the queue stores an id once, and a sent id's record marks it sent).
 */
export function messageIdFor(seed: string): string {
  return `3EB0${createHash('sha256').update(seed).digest('hex').slice(0, 18).toUpperCase()}`;
}

/** A secret: `bytes` random bytes (default 24 = 192 bits), base64url, straight from the CSPRNG. */
export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** The Unix ms time encoded in a ULID's first ten characters (NaN when they are not Crockford base32). */
export function ulidTime(id: string): number {
  let ms = 0;
  for (let i = 0; i < 10; i++) {
    const digit = CROCKFORD.indexOf(id[i]?.toUpperCase() ?? '');
    if (digit < 0) return Number.NaN;
    ms = ms * 32 + digit;
  }
  return ms;
}

/** The smallest ULID of millisecond `ms`: every id made at `ms` or later sorts at or after it. */
export function ulidFloor(ms: number): string {
  return timeText(Math.max(0, Math.floor(ms))) + '0'.repeat(16);
}

/** Whether `id` has the shape of a ULID (26 Crockford base32 characters, upper case). */
export function isUlid(id: string): boolean {
  return /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/.test(id);
}
