import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertUrlAllowed, isPrivateAddress, isPublicAddress, ValidationError } from '../src/index.js';

describe('isPrivateAddress', () => {
  it('flags loopback, private, link-local, CGNAT, multicast, reserved and documentation IPv4 ranges', () => {
    for (const ip of [
      '0.0.0.0', '10.1.2.3', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.255.255.254', '169.254.169.254', '172.16.0.1',
      '172.31.255.255', '192.0.0.8', '192.0.2.10', '192.168.1.1', '198.18.0.1', '198.19.255.255', '198.51.100.7', '203.0.113.9',
      '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
    ]) assert.equal(isPrivateAddress(ip), true, ip);
  });

  it('lets public IPv4 addresses through, including the neighbours of private ranges', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.169.0.1', '11.0.0.1', '223.255.255.255']) {
      assert.equal(isPrivateAddress(ip), false, ip);
    }
  });

  it('flags IPv6 loopback, unspecified, unique-local, link-local, site-local, multicast, documentation, Teredo, NAT64 local-use and discard', () => {
    for (const ip of [
      '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fec0::1', 'feff::1', 'ff02::1', '2001:db8::1', '100::1',
      // Teredo hides its IPv4 addresses (the client one XOR-ed): refused whatever they are.
      '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      // NAT64 local-use: the operator decides where it translates to.
      '64:ff9b:1::808:808', '64:ff9b:1:ffff::1',
    ]) assert.equal(isPrivateAddress(ip), true, ip);
  });

  it('judges an IPv6 address that embeds an IPv4 address by that IPv4 address', () => {
    for (const ip of [
      '::127.0.0.1', '::7f00:1', '::10.0.0.1', '::0.0.0.2', // IPv4-compatible
      '::ffff:0:127.0.0.1', '::ffff:0:a9fe:a9fe', // SIIT (RFC 6145)
      '2002:7f00:1::', '2002:a00:1::1', '2002:c0a8:101::', // 6to4
      '64:ff9b::7f00:1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', // NAT64 well-known
    ]) assert.equal(isPrivateAddress(ip), true, ip);
    for (const ip of ['::8.8.8.8', '::ffff:0:8.8.8.8', '2002:808:808::1', '64:ff9b::8.8.8.8', '64:ff9b::808:808']) {
      assert.equal(isPrivateAddress(ip), false, ip);
      assert.equal(isPublicAddress(ip), true, ip);
    }
  });

  it('lets public IPv6 through', () => {
    for (const ip of ['2001:4860:4860::8888', '2606:4700:4700::1111']) assert.equal(isPrivateAddress(ip), false, ip);
  });

  it('checks IPv4-mapped IPv6 by its IPv4 address', () => {
    assert.equal(isPrivateAddress('::ffff:127.0.0.1'), true);
    assert.equal(isPrivateAddress('::FFFF:10.0.0.1'), true);
    assert.equal(isPrivateAddress('::ffff:8.8.8.8'), false);
  });

  it('treats anything that is not an IP address as private (fail closed)', () => {
    for (const value of ['', 'localhost', 'example.com', '999.1.1.1', '1.2.3']) assert.equal(isPrivateAddress(value), true, value);
  });
});

async function rejects(raw: string, options: Parameters<typeof assertUrlAllowed>[1], message: string): Promise<void> {
  await assert.rejects(assertUrlAllowed(raw, options), (err: unknown) => {
    assert.ok(err instanceof ValidationError, String(err));
    assert.equal(err.status, 400);
    assert.equal(err.message, message);
    return true;
  });
}

describe('assertUrlAllowed', () => {
  it('answers the parsed URL of an allowed public address', async () => {
    const url = await assertUrlAllowed('https://93.184.216.34:8443/a?b=c', { field: 'body.url', allowPrivate: false });
    assert.equal(url.href, 'https://93.184.216.34:8443/a?b=c');
    const named = await assertUrlAllowed('http://media.example.com/x.png', { field: 'body.url', allowPrivate: false, resolve: false });
    assert.equal(named.hostname, 'media.example.com');
  });

  it('refuses what does not parse, naming the field', async () => {
    await rejects('not a url', { field: 'body.url', allowPrivate: false }, 'body.url must be an absolute URL');
    await rejects('/relative/path', { field: 'webhookMessage', allowPrivate: true }, 'webhookMessage must be an absolute URL');
  });

  it('refuses schemes outside the allowed list', async () => {
    await rejects('ftp://93.184.216.34/file', { field: 'body.url', allowPrivate: false }, 'body.url must use http, https');
    await rejects('file:///etc/passwd', { field: 'body.url', allowPrivate: true }, 'body.url must use http, https');
    await rejects('http://1.2.3.4:3128', { field: 'body.proxy', protocols: ['socks5'], allowPrivate: false }, 'body.proxy must use socks5');
    const socks = await assertUrlAllowed('socks5://u:p@1.2.3.4:1080', { field: 'body.proxy', protocols: ['http', 'socks5'], allowPrivate: false });
    assert.equal(socks.protocol, 'socks5:');
  });

  it('refuses private IP literals (v4, v6, mapped) unless private URLs are allowed', async () => {
    for (const raw of [
      'http://127.0.0.1:8080/', 'http://10.0.0.5/', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/', 'http://[::ffff:192.168.0.1]/', 'http://0.0.0.0/',
      'http://[::127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]/', 'http://[2002:7f00:1::]/', 'http://[64:ff9b::127.0.0.1]/', 'http://[64:ff9b:1::1]/',
      'http://[2001::1]/', 'http://[fec0::1]/',
      // Other spellings of 127.0.0.1, which the URL parser turns into the dotted form.
      'http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.1/', 'http://127.1/',
    ]) {
      await rejects(raw, { field: 'body.url', allowPrivate: false }, 'body.url points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)');
    }
    const allowed = await assertUrlAllowed('http://127.0.0.1:8080/x', { field: 'body.url', allowPrivate: true });
    assert.equal(allowed.port, '8080');
  });

  it('refuses local host names without resolving them', async () => {
    for (const raw of [
      'http://localhost/', 'http://LOCALHOST:3000/', 'http://api.localhost/', 'http://printer.local/', 'http://db.internal/',
      // The fully qualified spelling (trailing dot) names the same host.
      'http://localhost./', 'http://api.localhost.:3000/', 'http://db.internal./',
    ]) {
      await rejects(raw, { field: 'body.url', allowPrivate: false }, 'body.url points to a private network host (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)');
    }
  });
});
