import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastTime = 0;
let lastRandom = new Uint8Array(10);

/**
 * A ULID: 26 characters, lexicographically ordered by creation time, monotonic within a process.
 * Used for event and delivery ids.
 */
export function newUlid(now = Date.now()): string {
  if (now === lastTime) {
    for (let i = lastRandom.length - 1; i >= 0; i--) {
      lastRandom[i] = (lastRandom[i]! + 1) & 0xff;
      if (lastRandom[i] !== 0) break;
    }
  } else {
    lastTime = now;
    lastRandom = randomBytes(10);
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let bits = 0n;
  for (const b of lastRandom) bits = (bits << 8n) | BigInt(b);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    rand = CROCKFORD[Number(bits & 31n)] + rand;
    bits >>= 5n;
  }
  return time + rand;
}

/** A message id in the main channel's style: `3EB0` followed by 18 upper-case hex characters. */
export function newMessageId(): string {
  return `3EB0${randomBytes(9).toString('hex').toUpperCase()}`;
}

/** A secret: `bytes` random bytes (default 24 = 192 bits), base64url. */
export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
