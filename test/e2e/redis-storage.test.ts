import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually, serviceUrlOrSkip, startHttpReceiver, TcpProxy, type HttpReceiver } from '@parley/testkit';
import { freePort } from '@parley/testkit/host';
import { PrivateRedis, deleteKeys } from '@parley/storage-redis/testing';
import { startTestServer, type TestServer } from '../support/test-server.js';

const redisUrl = serviceUrlOrSkip('REDIS_URL', 'the server on Redis storage');

if (redisUrl) {
  describe('the server on Redis storage', () => {
    const target = new URL(redisUrl);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    let t: TestServer;
    let receiver: HttpReceiver;
    const prefix = `parley-e2e-${process.pid}-${Date.now()}:`;

    before(async () => {
      await proxy.start();
      receiver = await startHttpReceiver();
      t = await startTestServer({
        plugins: [
          { package: '@parley/storage-redis', options: { url: `redis://127.0.0.1:${proxy.port}`, keyPrefix: prefix, commandTimeoutMs: 2000 } },
          { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' },
        ],
      });
    });
    after(async () => {
      await t.stop();
      await receiver.close();
      await proxy.cut();
      await deleteKeys(redisUrl, prefix);
    });

    it('stores, delivers signed webhooks, answers 503 while Redis is unreachable and loses nothing', async () => {
      const alice = await t.connectedSandbox({ name: 'alice', number: '5511920000001' });
      const bob = await t.connectedSandbox({
        name: 'bob', number: '5511920000002',
        webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/hook` },
      });
      const first = await t.request('POST', `/${alice.key}/message/text`, { to: '5511920000002', text: 'before the outage' });
      assert.equal(first.status, 200);
      const delivered = await t.waitFor(() => receiver.requests.find((r) => (r.json as { type?: string }).type === 'message'), 20_000,
        'the incoming message to reach the webhook');
      const id = String(delivered.headers['webhook-id']);
      const ts = String(delivered.headers['webhook-timestamp']);
      const secret = Buffer.from(bob.webhookSecret.replace(/^whsec_/, ''), 'base64');
      const expected = createHmac('sha256', secret).update(`${id}.${ts}.${delivered.body}`).digest('base64');
      assert.ok(String(delivered.headers['webhook-signature']).split(' ').includes(`v1,${expected}`));

      await proxy.cut();
      assert.ok(await eventually(async () => (await t.request('GET', '/readyz')).status === 503, 300), '/readyz reports not ready');
      const ready = await t.request('GET', '/readyz');
      assert.equal(ready.body.error.code, 'service_unavailable');
      const during = await t.request('GET', `/${bob.key}/chat/5511920000001/messages`);
      assert.equal(during.status, 503);
      assert.equal(during.body.error.code, 'service_unavailable');
      assert.equal((await t.request('GET', '/healthz')).status, 200, 'liveness is unaffected');

      await proxy.restore();
      assert.ok(await eventually(async () => (await t.request('GET', '/readyz')).status === 200, 300), '/readyz recovers');
      const history = await t.request('GET', `/${bob.key}/chat/5511920000001/messages`);
      assert.equal(history.body.total, 1, 'nothing Redis had was lost');
      const second = await t.request('POST', `/${alice.key}/message/text`, { to: '5511920000002', text: 'after the outage' });
      assert.equal(second.status, 200);
      await t.waitFor(async () => (await t.request('GET', `/${bob.key}/chat/5511920000001/messages`)).body.total === 2, 20_000, 'the second message');
      const stats = await t.request('GET', `/${bob.key}/instance/webhook/statistics`);
      assert.equal(stats.status, 200);
      assert.equal(typeof stats.body.data.totalSent, 'number');
    });
  });
}

describe('the server on a Redis that refuses writes', { skip: redisUrl ? false : 'needs REDIS_URL (redis-server on the machine)' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-redis-oom-'));
  let redis: PrivateRedis;
  let t: TestServer;
  const config = (...args: string[]) => execFileSync('redis-cli', ['-p', String(redis.port), 'CONFIG', 'SET', ...args], { encoding: 'utf8' });

  before(async () => {
    redis = new PrivateRedis(await freePort(), dir);
    await redis.start();
    t = await startTestServer({ plugins: [{ package: '@parley/storage-redis', options: { url: redis.url } }, { package: '@parley/channel-sandbox' }] });
  });
  after(async () => {
    await t.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('/readyz says it cannot write while Redis answers OOM, and is ready again once it takes writes', async () => {
    assert.equal((await t.request('GET', '/readyz')).status, 200);
    // Any use is over a 1-byte limit: Redis answers reads and PING, and refuses every write.
    config('maxmemory-policy', 'noeviction');
    config('maxmemory', '1');
    const refused = await t.request('GET', '/readyz');
    assert.equal(refused.status, 503);
    assert.match(refused.body.error.message, /^storage redis is not ready: OOM command not allowed/);
    config('maxmemory', '0');
    assert.equal((await t.request('GET', '/readyz')).status, 200);
  });
});
