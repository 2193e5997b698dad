import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, it } from 'node:test';
import { guardedLookup, privateLiteralError } from '../src/index.js';

describe('guardedLookup', () => {
  function lookup(allowPrivate: boolean, host: string, options: object): Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }> {
    return new Promise((resolve) => guardedLookup(allowPrivate)(host, options as never, (err, address, family) => resolve({ err, address, family })));
  }

  it('refuses a host resolving to a private address at connect time (EPRIVATEADDR)', async () => {
    const { err } = await lookup(false, 'localhost', {});
    assert.equal(err?.code, 'EPRIVATEADDR');
    assert.match(err!.message, /^localhost resolves to a private address \((127\.0\.0\.1|::1)\)$/);
  });

  it('answers the address when private addresses are allowed, in single and all forms', async () => {
    const one = await lookup(true, 'localhost', { family: 4 });
    assert.equal(one.err, null);
    assert.equal(one.address, '127.0.0.1');
    assert.equal(one.family, 4);
    const all = await lookup(true, 'localhost', { family: 4, all: true });
    assert.deepEqual(all.address, [{ address: '127.0.0.1', family: 4 }]);
  });
});

describe('privateLiteralError', () => {
  it('refuses private IP literals, bracketed IPv6 too, and lets public literals and host names through (the lookup checks those)', () => {
    for (const host of ['127.0.0.1', '10.1.2.3', '[::1]', '::ffff:192.168.0.1']) {
      const err = privateLiteralError(host);
      assert.equal(err?.code, 'EPRIVATEADDR', host);
      assert.match(err!.message, /is a private address \(set PARLEY_ALLOW_PRIVATE_URLS=1/);
    }
    for (const host of ['93.184.216.34', '[2606:4700::1]', 'localhost', '', null, undefined]) assert.equal(privateLiteralError(host), undefined, String(host));
  });
});
