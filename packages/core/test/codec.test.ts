import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeStored, encodeStored } from '../src/index.js';

describe('encodeStored / decodeStored', () => {
  it('encodes Buffers and Uint8Arrays as base64 objects', () => {
    assert.equal(encodeStored({ a: Buffer.from([1, 2, 255]) }), '{"a":{"type":"Buffer","data":"AQL/"}}');
    assert.equal(encodeStored(new Uint8Array([104, 105])), '{"type":"Buffer","data":"aGk="}');
  });

  it('round-trips nested binary data as Buffers, leaving other values alone', () => {
    const value = {
      creds: { noiseKey: { private: Buffer.from('private-key'), public: new Uint8Array([0, 1, 2, 3]) } },
      list: [Buffer.alloc(0), 'text', 42, null, true],
      plain: { type: 'NotBuffer', data: 'x' },
    };
    const decoded = decodeStored<typeof value>(encodeStored(value));
    assert.ok(Buffer.isBuffer(decoded.creds.noiseKey.private));
    assert.equal(decoded.creds.noiseKey.private.toString(), 'private-key');
    assert.ok(Buffer.isBuffer(decoded.creds.noiseKey.public));
    assert.deepEqual([...decoded.creds.noiseKey.public], [0, 1, 2, 3]);
    assert.ok(Buffer.isBuffer(decoded.list[0]));
    assert.equal((decoded.list[0] as Buffer).length, 0);
    assert.deepEqual(decoded.list.slice(1), ['text', 42, null, true]);
    assert.deepEqual(decoded.plain, { type: 'NotBuffer', data: 'x' });
  });

  it('decodes the legacy JSON form of a Buffer (number array)', () => {
    const decoded = decodeStored<{ k: Buffer }>('{"k":{"type":"Buffer","data":[7,8,9]}}');
    assert.ok(Buffer.isBuffer(decoded.k));
    assert.deepEqual([...decoded.k], [7, 8, 9]);
  });

  it('finds binary data however deep, in arrays and behind toJSON', () => {
    const deep = { a: [{ b: { c: [0, { d: Buffer.from('x') }] } }] };
    assert.equal(encodeStored(deep), '{"a":[{"b":{"c":[0,{"d":{"type":"Buffer","data":"eA=="}}]}}]}');
    const selfSerializing = { v: { toJSON: () => new Uint8Array([1]) } };
    assert.equal(encodeStored(selfSerializing), '{"v":{"type":"Buffer","data":"AQ=="}}');
    assert.equal(encodeStored({ when: new Date(0) }), '{"when":"1970-01-01T00:00:00.000Z"}');
  });

  it('round-trips plain JSON unchanged', () => {
    const value = { a: 1, b: [1, 'two', { c: false }], d: 'é✓' };
    assert.deepEqual(decodeStored(encodeStored(value)), value);
  });
});
