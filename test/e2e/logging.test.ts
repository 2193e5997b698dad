import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startLocalHttp, type LocalHttp } from './fixtures/local-http.js';

describe('logging never reveals secrets', () => {
  let t: TestServer;
  let receiver: LocalHttp;
  const secrets: string[] = [];

  before(async () => {
    t = await startTestServer({ captureLogs: true });
    secrets.push(t.adminToken);
    // Deliveries to /ok succeed, to /fail fail: both paths of the webhook engine log.
    receiver = await startLocalHttp((req, res) => {
      req.resume();
      res.writeHead(req.url === '/ok' ? 200 : 500).end();
    });
  });
  after(async () => {
    await t.stop();
    await receiver.close();
  });

  it('across creating, connecting, configuring, sending, failing and deleting instances', async () => {
    const alice = await t.connectedSandbox({
      name: 'alice', number: '5511940000001',
      webhook: { allowWebhook: true, webhookMessage: `${receiver.url}/ok`, webhookConnection: `${receiver.url}/fail`, webhookQrCode: `${receiver.url}/fail` },
    });
    const bob = await t.connectedSandbox({ name: 'bob', number: '5511940000002' });
    secrets.push(alice.key, alice.webhookSecret, bob.key, bob.webhookSecret, 'pr0xy-passw0rd');

    // Ordinary traffic, at debug level every request is logged.
    assert.equal((await t.request('PUT', `/${alice.key}/instance`, { webhookFormat: 'meta' })).status, 200);
    assert.equal((await t.request('POST', `/${alice.key}/instance/proxy`, { proxy: 'http://agent:pr0xy-passw0rd@proxy.example.com:3128' })).status, 200);
    assert.equal((await t.request('POST', `/${alice.key}/message/text`, { to: '5511940000002', text: 'hello' })).status, 200);
    await t.waitFor(async () => (await t.request('GET', `/${bob.key}/chat/5511940000001/messages`)).body.total === 1, 5000, 'delivery');
    await t.waitFor(async () => {
      const stats = (await t.request('GET', `/${alice.key}/instance/webhook/statistics`)).body.data;
      return stats.totalSent > 0 && stats.totalFailed > 0;
    }, 10_000, 'webhook deliveries, successful and failed');
    assert.ok(receiver.requests.includes('/ok') && receiver.requests.includes('/fail'));
    assert.equal((await t.admin('GET', `/admin/instances/${alice.key}`)).status, 200);
    assert.equal((await t.request('POST', `/${bob.key}/instance/restart`)).status, 200);

    // Failures: bad input, unknown routes below a key, bad admin tokens, a not-connected instance, 404s with key-like ids.
    assert.equal((await t.request('POST', `/${alice.key}/message/text`, { to: 'nobody', text: 'x' })).status, 400);
    assert.equal((await t.request('GET', `/${alice.key}/no/such/route`)).status, 404);
    assert.equal((await t.admin('GET', `/admin/instances/${alice.key}/typo`)).status, 404);
    assert.equal((await t.request('POST', `/sandbox/${alice.key}/scan/typo`)).status, 404);
    assert.equal((await t.request('GET', '/admin/instances', undefined, { authorization: `Bearer ${alice.key}` })).status, 401);
    assert.equal((await t.request('GET', '/admin/instances', undefined, { authorization: `Bearer ${t.adminToken}-wrong` })).status, 401);
    assert.equal((await t.request('POST', `/${alice.key}/instance/pairing-code`, '{"broken', { 'content-type': 'application/json' })).status, 400);
    assert.equal((await t.request('POST', `/sandbox/${bob.key}/scan`)).status, 409);
    assert.equal((await t.request('DELETE', `/${bob.key}/instance`)).status, 200);
    assert.equal((await t.request('POST', `/${bob.key}/instance/resync`)).status, 409);
    assert.equal((await t.admin('GET', `/admin/instances/${bob.key}x`)).status, 404);

    assert.equal((await t.admin('DELETE', `/admin/instances/${alice.key}`)).status, 200);
    await t.settle();

    const lines = t.logs.flatMap((chunk) => chunk.split('\n')).filter(Boolean);
    assert.ok(lines.length > 20, `expected a busy log, got ${lines.length} lines`);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(parsed.some((l) => l.msg === 'instance created' && l.instance === alice.id), 'lines name instances by public id');
    assert.ok(parsed.some((l) => l.msg === 'request' && l.path === '/:key/message/text' && l.status === 200), 'request lines carry the redacted path');
    for (const line of lines) {
      for (const secret of secrets) assert.ok(!line.includes(secret), `a log line contains a secret (${secret.slice(0, 4)}…): ${line}`);
    }
  });
});
