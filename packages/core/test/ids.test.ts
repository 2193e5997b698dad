import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newMessageId, newSecret, newUlid } from '../src/index.js';

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** Decodes the 48-bit time part of a ULID. */
function ulidTime(ulid: string): number {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  return [...ulid.slice(0, 10)].reduce((acc, c) => acc * 32 + alphabet.indexOf(c), 0);
}

describe('newUlid', () => {
  it('is 26 Crockford base32 characters whose first 10 encode the time', () => {
    const at = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
    const id = newUlid(at);
    assert.match(id, CROCKFORD);
    assert.equal(ulidTime(id), at);
  });

  it('encodes time 0 as ten zeros', () => {
    assert.equal(newUlid(0).slice(0, 10), '0000000000');
  });

  it('is strictly increasing within one millisecond (monotonic) and across milliseconds', () => {
    const at = 1_700_000_000_000;
    const same = Array.from({ length: 200 }, () => newUlid(at));
    for (let i = 1; i < same.length; i++) assert.ok(same[i - 1]! < same[i]!, `${same[i - 1]} < ${same[i]}`);
    assert.equal(new Set(same).size, 200);
    const later = newUlid(at + 1);
    assert.ok(same.at(-1)! < later);
    assert.equal(ulidTime(later), at + 1);
  });

  it('stays strictly increasing over thousands of ids in one millisecond', () => {
    const at = 1_700_000_000_001;
    const ids = Array.from({ length: 5_000 }, () => newUlid(at));
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!);
    assert.ok(ids.every((id) => CROCKFORD.test(id)));
  });

  it('draws fresh randomness for each new millisecond', () => {
    const parts = new Set(Array.from({ length: 1_000 }, (_, i) => newUlid(1_800_000_000_000 + i).slice(10)));
    assert.equal(parts.size, 1_000);
  });

  it('sorts lexicographically by creation time', () => {
    const ids = [3, 1, 2].map((n) => newUlid(1_600_000_000_000 + n * 1000));
    assert.deepEqual([...ids].sort(), [ids[1], ids[2], ids[0]]);
  });
});

describe('newSecret', () => {
  it('is base64url of 24 random bytes (192 bits) by default', () => {
    const secret = newSecret();
    assert.match(secret, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(Buffer.from(secret, 'base64url').length, 24);
  });

  it('honours the byte count and never repeats', () => {
    assert.equal(Buffer.from(newSecret(32), 'base64url').length, 32);
    assert.equal(newSecret(16).length, 22);
    const many = new Set(Array.from({ length: 500 }, () => newSecret(16)));
    assert.equal(many.size, 500);
  });
});

describe('newMessageId', () => {
  it('is 3EB0 followed by 18 upper-case hex characters', () => {
    for (let i = 0; i < 20; i++) assert.match(newMessageId(), /^3EB0[0-9A-F]{18}$/);
  });

  it('never repeats, across many refills of the random pool', () => {
    const ids = Array.from({ length: 5_000 }, () => newMessageId());
    assert.equal(new Set(ids).size, ids.length);
    const hex = ids.join('').replace(/3EB0/g, '');
    for (const digit of '0123456789ABCDEF') assert.ok(hex.includes(digit), `digit ${digit} appears`);
  });
});
