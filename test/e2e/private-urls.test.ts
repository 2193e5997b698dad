import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiErrorAnswer, fieldError } from '../support/api-error.js';
import { startCountingListener, type CountingListener } from '@parley/testkit';
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
      await assert.rejects(api.call('updateWebhookSettings', { body }), apiErrorAnswer(fieldError(`${message} (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)`)));
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
    await assert.rejects(api.call('setProxy', { body: { proxy: 'http://127.0.0.1:3128' } }), apiErrorAnswer(fieldError('body.proxy points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)')));
    assert.equal((await strict.server.context.storage.instances.get(created.id))?.proxy, undefined);
  });

  it('accepts the proxy on loopback with allowPrivateProxies, and still refuses a media URL on loopback', async () => {
    const api = proxies.client((await proxies.connectedSandbox({ number: '5511940000012' })).key);
    assert.deepEqual((await api.call('setProxy', { body: { proxy: 'http://127.0.0.1:3128' } })).data, { proxy: 'http://127.0.0.1:3128' });
    await assert.rejects(api.call('sendImage', { body: { to: '5511940000013', url: 'http://127.0.0.1:9/a.png' } }), apiErrorAnswer(fieldError('body.url points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)')));
  });
});

/**
 * `POST /{key}/instance/mongodb` with the real MongoDB connector: the key holder's connection string is
 * dialled by the driver, so it is held to the same rule as every other user-supplied URL.
 */
describe('an external MongoDB on a private network (PARLEY_ALLOW_PRIVATE_URLS off)', () => {
  let t: TestServer;
  let listener: CountingListener;
  before(async () => {
    listener = await startCountingListener();
    t = await startTestServer({
      config: { allowPrivateUrls: false },
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox' },
        { package: '@parley/storage-mongodb/external', options: { timeoutMs: 500 } },
      ],
    });
  });
  after(async () => {
    await t.stop();
    await listener.close();
  });

  it('answers 400 naming PARLEY_ALLOW_PRIVATE_URLS, never dials the address, and attaches nothing', async () => {
    const created = await t.connectedSandbox({ number: '5511940000021' });
    for (const uri of [
      `mongodb://admin:hunter2@127.0.0.1:${listener.port}/?serverSelectionTimeoutMS=300`,
      `mongodb://[::ffff:127.0.0.1]:${listener.port}/`,
      `mongodb://localhost:${listener.port}/`,
    ]) {
      const res = await t.request('POST', `/${created.key}/instance/mongodb`, { uri, dbName: 'parley' });
      assert.equal(res.status, 400, uri);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.match(res.body.error.message, /^body\.uri points to a private network (address|host) \(set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs\)$/);
      assert.ok(!JSON.stringify(res.body).includes('hunter2'));
    }
    assert.equal(listener.connections(), 0);
    assert.equal((await t.server.context.storage.instances.get(created.id))?.externalDatabase, undefined);
  });
});
