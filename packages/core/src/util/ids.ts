import { randomBytes, randomFillSync } from 'node:crypto';

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
/** The 80 random bits of the last ULID, as two 40-bit numbers (high, low): exact in a double. */
let randomHigh = 0;
let randomLow = 0;
const TWO_40 = 2 ** 40;

/** `digits` Crockford base32 characters of `value` (a non-negative integer below 32^digits). */
function base32(value: number, digits: number): string {
  let text = '';
  for (let i = 0; i < digits; i++) {
    text = CROCKFORD[value % 32]! + text;
    value = Math.floor(value / 32);
  }
  return text;
}

/**
 * A ULID: 26 characters, lexicographically ordered by creation time, monotonic within a process
 * (within one millisecond the random part counts up). Used for event and delivery ids.
 */
export function newUlid(now = Date.now()): string {
  if (now === lastTime) {
    randomLow++;
    if (randomLow === TWO_40) {
      randomLow = 0;
      randomHigh = (randomHigh + 1) % TWO_40;
    }
  } else {
    lastTime = now;
    const at = take(10);
    randomHigh = pool.readUIntBE(at, 5);
    randomLow = pool.readUIntBE(at + 5, 5);
  }
  return base32(now, 10) + base32(randomHigh, 8) + base32(randomLow, 8);
}

/** A message id in the main channel's style: `3EB0` followed by 18 upper-case hex characters. */
export function newMessageId(): string {
  const at = take(9);
  let id = '3EB0';
  for (let i = at; i < at + 9; i++) id += HEX[pool[i]! >> 4]! + HEX[pool[i]! & 15]!;
  return id;
}

/** A secret: `bytes` random bytes (default 24 = 192 bits), base64url, straight from the CSPRNG. */
export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
