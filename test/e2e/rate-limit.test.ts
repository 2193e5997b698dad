import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { serviceUrlOrSkip, TcpProxy } from '@parley/testkit';
import { expectError } from '../support/api-assertions.js';
import { deleteKeys } from '@parley/storage-redis/testing';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.js';

const UNKNOWN = '/unknownKeyAAAAAAAAAAAAAAAAAAAAAAAA/instance';

/** A 429 of the failure limiter, with its Retry-After header. */
function expectRateLimited(res: TestResponse, retryAfter: number): void {
  expectError(res, 429, 'rate_limited', `too many failed authentications from this address; retry in ${retryAfter} s`);
  assert.deepEqual(res.body.error.details, { retryAfterSeconds: retryAfter });
  assert.equal(res.headers.get('retry-after'), String(retryAfter));
}

/** The status, Retry-After and error code of a refused WebSocket upgrade. */
function refusedUpgrade(url: string, headers: Record<string, string>): Promise<[number, string | undefined, string]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => {
        resolve([res.statusCode ?? 0, res.headers['retry-after'] as string | undefined, JSON.parse(text).error.code]);
      });
    });
  });
}

/** Parsed pino lines captured since index `from`. */
function logLines(t: TestServer, from: number): { level: number; msg: string; status?: number }[] {
  return t.logs.slice(from).flatMap((chunk) => chunk.split('\n').filter(Boolean).map((line) => JSON.parse(line)));
}

describe('failed authentications are limited per client address', () => {
  let t: TestServer;
  let key: string;

  before(async () => {
    // Behind a trusted proxy on loopback, X-Forwarded-For names the client: each test uses its own address.
    t = await startTestServer({ captureLogs: true, config: { rateLimit: { failures: 3, windowSeconds: 60, blockSeconds: 2 }, trustProxy: 'loopback' } });
    key = (await t.createInstance({ name: 'limited' })).key;
  });
  after(async () => {
    await t.stop();
  });

  const from = (address: string) => ({ 'x-forwarded-for': address });

  it('unknown keys and bad admin tokens count; over the limit they answer 429 with Retry-After until the block ends', async () => {
    const me = from('203.0.113.10');
    for (let i = 0; i < 2; i++) expectError(await t.request('GET', UNKNOWN, undefined, me), 404, 'instance_not_found');
    expectError(await t.request('GET', '/admin/instances', undefined, { ...me, authorization: 'Bearer not-the-token-0123' }), 401, 'unauthorized');
    // The fourth failure within the window.
    expectRateLimited(await t.request('POST', `${UNKNOWN}/restart`, undefined, me), 2);
    expectRateLimited(await t.request('GET', '/admin/instances', undefined, { ...me, authorization: 'Bearer not-the-token-0123' }), 2);
    // Another address is not affected.
    expectError(await t.request('GET', UNKNOWN, undefined, from('203.0.113.11')), 404, 'instance_not_found');
    // IPv6 counts by /64: rotating addresses within one does not escape the limit.
    for (let i = 1; i <= 3; i++) expectError(await t.request('GET', UNKNOWN, undefined, from(`2001:db8:7:7::${i}`)), 404, 'instance_not_found');
    expectRateLimited(await t.request('GET', UNKNOWN, undefined, from('2001:db8:7:7:ffff::4')), 2);
    expectError(await t.request('GET', UNKNOWN, undefined, from('2001:db8:7:8::1')), 404, 'instance_not_found');
    // The block ends after blockSeconds.
    await new Promise((r) => setTimeout(r, 2100));
    expectError(await t.request('GET', UNKNOWN, undefined, me), 404, 'instance_not_found');
  });

  it('successful requests are never limited, not even from a blocked address, and do not count', async () => {
    const me = from('203.0.113.20');
    for (let i = 0; i < 20; i++) assert.equal((await t.request('GET', `/${key}/instance`, undefined, me)).status, 200);
    for (let i = 0; i < 3; i++) expectError(await t.request('GET', UNKNOWN, undefined, me), 404, 'instance_not_found');
    expectRateLimited(await t.request('GET', UNKNOWN, undefined, me), 2);
    assert.equal((await t.request('GET', `/${key}/instance`, undefined, me)).status, 200);
    assert.equal((await t.request('GET', '/admin/instances', undefined, { ...me, authorization: `Bearer ${t.adminToken}` })).status, 200);
    // Failures that are not failed authentications (validation, unknown routes, public routes) do not count either.
    const other = from('203.0.113.21');
    for (let i = 0; i < 5; i++) {
      expectError(await t.request('POST', `/${key}/message/text`, { to: 'x' }, other), 400, 'validation_failed');
      expectError(await t.request('GET', '/favicon.ico', undefined, other), 404, 'route_not_found');
    }
    expectError(await t.request('GET', UNKNOWN, undefined, other), 404, 'instance_not_found');
  });

  it('WebSocket upgrades of the event streams count against the same address (behind the trusted proxy) as HTTP requests', async () => {
    const me = from('203.0.113.50');
    const ws = t.url.replace(/^http/, 'ws');
    for (let i = 0; i < 2; i++) assert.deepEqual(await refusedUpgrade(`${ws}/unknownKeyAAAAAAAAAAAAAAAAAAAAAAAA/events`, me), [404, undefined, 'instance_not_found']);
    assert.deepEqual(await refusedUpgrade(`${ws}/admin/events`, { ...me, authorization: 'Bearer not-the-token-0123' }), [401, undefined, 'unauthorized']);
    assert.deepEqual(await refusedUpgrade(`${ws}/admin/events`, { ...me, authorization: 'Bearer not-the-token-0123' }), [429, '2', 'rate_limited']);
    expectRateLimited(await t.request('GET', UNKNOWN, undefined, me), 2);
    // Another address behind the same proxy is not affected.
    assert.deepEqual(await refusedUpgrade(`${ws}/unknownKeyAAAAAAAAAAAAAAAAAAAAAAAA/events`, from('203.0.113.51')), [404, undefined, 'instance_not_found']);
  });

  it('a public route under a key (the sandbox driver\'s) counts its unknown keys too', async () => {
    const me = from('203.0.113.30');
    for (let i = 0; i < 3; i++) expectError(await t.request('POST', '/sandbox/unknownKeyAAAAAAAAAAAAAAAAAAAAAAAA/scan', undefined, me), 404, 'instance_not_found');
    expectRateLimited(await t.request('POST', '/sandbox/unknownKeyAAAAAAAAAAAAAAAAAAAAAAAA/scan', undefined, me), 2);
  });

  it('a flood of failed lookups writes no info lines: requests log at debug, the block warns once', async () => {
    const start = t.logs.length;
    const me = from('203.0.113.40');
    const paths = ['/favicon.ico', '/metrics', UNKNOWN, '/unknownKeyBBBBBBBBBBBBBBBBBBBBBBBB/chat', '/admin/instances'];
    for (let round = 0; round < 40; round++) {
      await Promise.all(paths.map((path) => t.request('GET', path, undefined, { ...me, authorization: 'Bearer wrong-token-0123456789' })));
    }
    await t.waitFor(() => logLines(t, start).filter((l) => l.msg === 'request').length >= 200, 5000, 'the 200 request lines');
    const lines = logLines(t, start);
    assert.equal(lines.filter((l) => l.msg === 'request' && l.level === 20).length, 200, 'every request is logged at debug');
    assert.deepEqual(lines.filter((l) => l.level >= 30).map((l) => l.msg), ['client blocked after repeated failed authentications']);
  });

  it('429 is documented for every route that takes a key or the admin token, 413 for every route that reads a body', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    assert.ok(doc.paths['/{key}/instance'].get.responses['429']);
    assert.ok(doc.paths['/admin/instances'].post.responses['429']);
    assert.ok(doc.paths['/admin/instances'].post.responses['413']);
    assert.ok(doc.paths['/sandbox/{key}/scan'].post.responses['429']);
    assert.equal(doc.paths['/healthz'].get.responses['429'], undefined);
    assert.equal(doc.paths['/healthz'].get.responses['413'], undefined);
  });
});

const redisUrl = serviceUrlOrSkip('REDIS_URL', 'the failure limit shared through Redis');

if (redisUrl) {
  describe('the failure limit shared through Redis', () => {
    const target = new URL(redisUrl);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    const prefix = `parley-e2e-rl-${process.pid}-${Date.now()}:`;
    let a: TestServer;
    let b: TestServer;

    const onRedis = (url: string) => [{ package: '@parley/storage-redis', options: { url, keyPrefix: prefix, commandTimeoutMs: 500 } }, { package: '@parley/channel-sandbox' }];
    const rateLimit = { failures: 3, windowSeconds: 60, blockSeconds: 30 };

    before(async () => {
      await proxy.start();
      // Two servers on one Redis, as two nodes behind a load balancer; b reaches Redis through a proxy that can be cut.
      a = await startTestServer({ plugins: onRedis(redisUrl), config: { rateLimit, trustProxy: 'loopback' } });
      b = await startTestServer({ plugins: onRedis(`redis://127.0.0.1:${proxy.port}`), config: { rateLimit, trustProxy: 'loopback' }, captureLogs: true });
    });
    after(async () => {
      await a.stop();
      await b.stop();
      await proxy.cut();
      await deleteKeys(redisUrl, prefix);
    });

    it('failures on two servers count together; the count lives under the storage key prefix', async () => {
      const me = { 'x-forwarded-for': '198.51.100.1' };
      expectError(await a.request('GET', UNKNOWN, undefined, me), 404, 'instance_not_found');
      expectError(await b.request('GET', UNKNOWN, undefined, me), 404, 'instance_not_found');
      expectError(await a.request('GET', UNKNOWN, undefined, me), 404, 'instance_not_found');
      // The fourth failure, on the other server.
      expectRateLimited(await b.request('GET', UNKNOWN, undefined, me), 30);
      const res = await a.request('GET', UNKNOWN, undefined, me);
      expectError(res, 429, 'rate_limited');
      const { createClient } = await import('redis');
      const client = createClient({ url: redisUrl });
      await client.connect();
      try {
        assert.ok(Number(await client.get(`${prefix}ratelimit:auth-failures:198.51.100.1`)) >= 4);
        assert.ok((await client.pTTL(`${prefix}ratelimit:auth-failures:198.51.100.1`)) > 25_000, 'blocked for blockSeconds');
      } finally {
        await client.close();
      }
    });

    it('while Redis is unreachable the server counts locally and warns once', async () => {
      await proxy.cut();
      const start = b.logs.length;
      const me = { 'x-forwarded-for': '198.51.100.2' };
      // Lookups themselves answer 503 while storage is down: the admin token is checked without storage.
      const bad = { ...me, authorization: 'Bearer wrong-token-0123456789' };
      for (let i = 0; i < 3; i++) expectError(await b.request('GET', '/admin/instances', undefined, bad), 401, 'unauthorized');
      expectRateLimited(await b.request('GET', '/admin/instances', undefined, bad), 30);
      const warnings = logLines(b, start).filter((l) => l.msg === 'rate limit store unreachable; counting failed authentications locally');
      assert.equal(warnings.length, 1);
    });
  });
}
