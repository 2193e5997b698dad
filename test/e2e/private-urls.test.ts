import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiErrorAnswer } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The refusal of a URL on a private network tells the operator how to allow such URLs. */
describe('a server that refuses private network URLs (PARLEY_ALLOW_PRIVATE_URLS off)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ config: { allowPrivateUrls: false } });
  });
  after(() => t.stop());

  it('answers 400 naming PARLEY_ALLOW_PRIVATE_URLS for a local webhook URL, and keeps the settings', async () => {
    const api = t.client((await t.createInstance({ number: '5511940000001' })).key);
    const refusals = [
      { body: { webhookMessage: 'http://127.0.0.1:8080/hook' }, message: 'body.webhookMessage points to a private network address' },
      { body: { webhookGroup: 'http://localhost:3000/hook' }, message: 'body.webhookGroup points to a private network host' },
    ];
    for (const { body, message } of refusals) {
      await assert.rejects(api.call('updateWebhookSettings', { body }), apiErrorAnswer({
        status: 400,
        error: { code: 'validation_failed', message: `${message} (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)`, details: undefined },
      }));
    }
    const { webhook } = (await api.call('getInstance')).instance;
    assert.equal(webhook.webhookMessage, '');
    assert.equal(webhook.webhookGroup, '');
  });
});

/**
 * An egress proxy inside the operator's network (PARLEY_ALLOW_PRIVATE_PROXIES=1): instances may use a
 * proxy on a private address while every other user-supplied URL stays refused.
 */
describe('private proxies allowed, private URLs refused', () => {
  let strict: TestServer;
  let proxies: TestServer;
  before(async () => {
    strict = await startTestServer({ config: { allowPrivateUrls: false } });
    proxies = await startTestServer({ config: { allowPrivateUrls: false, allowPrivateProxies: true } });
  });
  after(async () => {
    await strict.stop();
    await proxies.stop();
  });

  it('refuses a proxy on loopback by default, naming the setting, and stores nothing', async () => {
    const created = await strict.createInstance({ number: '5511940000011' });
    const api = strict.client(created.key);
    await assert.rejects(api.call('setProxy', { body: { proxy: 'http://127.0.0.1:3128' } }), apiErrorAnswer({
      status: 400,
      error: { code: 'validation_failed', message: 'body.proxy points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)', details: undefined },
    }));
    assert.equal((await strict.server.context.storage.instances.get(created.id))?.proxy, undefined);
  });

  it('accepts the proxy on loopback with allowPrivateProxies, and still refuses a media URL on loopback', async () => {
    const api = proxies.client((await proxies.connectedSandbox({ number: '5511940000012' })).key);
    assert.deepEqual((await api.call('setProxy', { body: { proxy: 'http://127.0.0.1:3128' } })).data, { proxy: 'http://127.0.0.1:3128' });
    await assert.rejects(api.call('sendImage', { body: { to: '5511940000013', url: 'http://127.0.0.1:9/a.png' } }), apiErrorAnswer({
      status: 400,
      error: { code: 'validation_failed', message: 'body.url points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)', details: undefined },
    }));
  });
});
