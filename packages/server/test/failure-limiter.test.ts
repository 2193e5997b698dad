import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientKey } from '../src/http/failure-limiter.js';

describe('clientKey: the key a client address is counted under', () => {
  it('keeps IPv4 addresses, unwraps IPv4-mapped IPv6', () => {
    assert.equal(clientKey('203.0.113.5'), '203.0.113.5');
    assert.equal(clientKey('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(clientKey('::FFFF:10.1.2.3'), '10.1.2.3');
  });

  it('counts IPv6 by /64, whatever the notation', () => {
    assert.equal(clientKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:0DB8:0001:0002:ffff::1'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:db8:1:2::'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
    assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  });
});
