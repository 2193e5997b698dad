import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.js';

const DEFAULT_WEBHOOK = {
  allowWebhook: false, allowNumber: 'all', webhookFormat: 'native', webhookMessage: '', webhookGroup: '', webhookConnection: '',
  webhookQrCode: '', webhookMessageFromMe: '', webhookHistory: '',
};
const NOT_FOUND = { status: 404, error: { code: 'instance_not_found', message: 'instance not found' } };
const TOKEN_REQUIRED = { status: 401, error: { code: 'unauthorized', message: 'admin token required: Authorization: Bearer <token>' } };
const TOKEN_INVALID = { status: 401, error: { code: 'unauthorized', message: 'invalid admin token' } };

describe('admin API', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.stop();
  });

  /** Asserts the admin view of an instance, given what varies. */
  function assertView(view: Record<string, any>, expected: { name: string; number?: string; webhook?: Record<string, unknown>; phoneConnected?: boolean }): void {
    assert.deepEqual(Object.keys(view).sort(), ['channel', 'createdAt', 'health', 'id', 'key', 'linkedChannels', 'name', 'options', 'phoneConnected', 'user', 'webhook', 'webhookSecret']);
    assert.match(view.id, /^ins_[0-9a-z]{26}$/);
    assert.match(view.key, /^[A-Za-z0-9_-]{22,}$/);
    assert.notEqual(view.key, view.id);
    assert.equal(view.name, expected.name);
    assert.equal(view.channel, 'sandbox');
    assert.ok(Number.isInteger(view.createdAt) && Math.abs(view.createdAt - Date.now()) < 600_000);
    assert.equal(view.phoneConnected, expected.phoneConnected ?? false);
    if (!expected.phoneConnected) assert.equal(view.user, null);
    assert.equal(view.health, 'healthy');
    assert.match(view.webhookSecret, /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/);
    assert.ok(Buffer.from(view.webhookSecret.slice('whsec_'.length), 'base64').length >= 24, 'a webhook secret has at least 192 bits');
    assert.deepEqual(view.webhook, expected.webhook ?? DEFAULT_WEBHOOK);
    if (expected.number) assert.deepEqual(view.options, { number: expected.number });
    else assert.match(view.options.number, /^5500\d{9}$/);
    assert.deepEqual(view.linkedChannels, []);
  }

  describe('POST /admin/instances', () => {
    it('creates with an empty body: the default channel, no name, an assigned number', async () => {
      const res = await t.admin('POST', '/admin/instances');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['status', 'data']);
      assert.equal(res.body.status, 200);
      assertView(res.body.data, { name: '' });
      assert.equal((await t.request('GET', `/${res.body.data.key}/instance`)).status, 200);
    });

    it('creates with channel, name, webhook settings and options.number; the instance answers with them', async () => {
      const webhook = { allowWebhook: true, webhookFormat: 'meta', webhookMessage: 'https://hooks.example.com/in' };
      const res = await t.admin('POST', '/admin/instances', { channel: 'sandbox', name: 'sales', webhook, options: { number: '5511920000001' } });
      assert.equal(res.status, 200);
      assertView(res.body.data, { name: 'sales', number: '5511920000001', webhook: { ...DEFAULT_WEBHOOK, ...webhook } });
      const instance = (await t.request('GET', `/${res.body.data.key}/instance`)).body.instance;
      assert.equal(instance.id, res.body.data.id);
      assert.equal(instance.name, 'sales');
      assert.deepEqual(instance.webhook, { ...DEFAULT_WEBHOOK, ...webhook });
      // The chosen number is the phone's number: the pairing code is accepted for it only.
      assert.equal((await t.request('POST', `/${res.body.data.key}/instance/pairing-code`, { phoneNumber: '5511920000001' })).status, 200);
    });

    it('issues keys of at least 128 bits, URL-safe, unique, distinct from ids and webhook secrets', async () => {
      const created = await Promise.all(Array.from({ length: 20 }, () => t.admin('POST', '/admin/instances', {})));
      const keys = created.map((r) => r.body.data.key as string);
      for (const key of keys) {
        assert.match(key, /^[A-Za-z0-9_-]+$/);
        assert.ok(key.length >= 22, key);
        assert.ok(Buffer.from(key, 'base64url').length >= 16);
        assert.equal(encodeURIComponent(key), key);
      }
      assert.equal(new Set(keys).size, 20);
      assert.equal(new Set(created.map((r) => r.body.data.id)).size, 20);
      assert.equal(new Set(created.map((r) => r.body.data.webhookSecret)).size, 20);
      assert.equal(new Set(created.map((r) => r.body.data.options.number)).size, 20);
    });

    it('refuses bad input naming the field, creating nothing', async () => {
      const before = (await t.admin('GET', '/admin/instances')).body.data.length;
      await t.admin('POST', '/admin/instances', { options: { number: '5511920000009' } });
      const cases: [unknown, number, string, string][] = [
        [{ channel: 'telegram' }, 400, 'validation_failed', 'body.channel "telegram" is not available; configured channels: sandbox'],
        [{ channel: 5 }, 400, 'validation_failed', 'body.channel must be string'],
        [{ name: ['a'] }, 400, 'validation_failed', 'body.name must be string'],
        [{ name: 'x'.repeat(201) }, 400, 'validation_failed', 'body.name must NOT have more than 200 characters'],
        [{ key: 'my-own-key' }, 400, 'validation_failed', 'body.key is not allowed'],
        [{ webhook: { webhookFormat: 'xml' } }, 400, 'validation_failed', 'body.webhook.webhookFormat must be one of native, meta, both'],
        [{ webhook: { allowWebhook: 1 } }, 400, 'validation_failed', 'body.webhook.allowWebhook must be boolean'],
        [{ options: { number: '12ab' } }, 400, 'validation_failed', 'body.options.number must be a phone number with country code (8 to 15 digits)'],
        [{ options: { colour: 'red' } }, 400, 'validation_failed', 'body.options.colour is not allowed (the sandbox accepts only number)'],
        [{ options: { number: '5511920000009' } }, 409, 'number_taken', 'sandbox number 5511920000009 is taken'],
        [[], 400, 'validation_failed', 'body must be a JSON object (Content-Type: application/json)'],
      ];
      for (const [body, status, code, message] of cases) {
        const res = await t.admin('POST', '/admin/instances', body);
        assert.deepEqual(res.body, { status, error: { code, message, ...(res.body.error?.details ? { details: res.body.error.details } : {}) } }, JSON.stringify(body));
      }
      assert.equal((await t.admin('GET', '/admin/instances')).body.data.length, before + 1);
    });
  });

  describe('GET /admin/instances and /admin/instances/{key}', () => {
    it('lists every instance with its admin view, and gets one by key or by public id', async () => {
      const a = (await t.admin('POST', '/admin/instances', { name: 'list-a', options: { number: '5511920000011' } })).body.data;
      const b = await t.connectedSandbox({ name: 'list-b', number: '5511920000012' });
      const list = await t.admin('GET', '/admin/instances');
      assert.equal(list.status, 200);
      assert.deepEqual(Object.keys(list.body), ['status', 'data']);
      const byId = new Map(list.body.data.map((v: { id: string }) => [v.id, v]));
      assert.deepEqual(byId.get(a.id), a);
      const bView = byId.get(b.id) as Record<string, any>;
      assertView(bView, { name: 'list-b', number: '5511920000012', phoneConnected: true });
      assert.deepEqual(bView.user, { id: '5511920000012@s.whatsapp.net', lid: bView.user.lid, name: 'list-b' });
      for (const view of list.body.data) assertView(view, { name: view.name, number: view.options.number, phoneConnected: view.phoneConnected, webhook: view.webhook });

      assert.deepEqual((await t.admin('GET', `/admin/instances/${a.key}`)).body, { status: 200, data: a });
      assert.deepEqual((await t.admin('GET', `/admin/instances/${a.id}`)).body, { status: 200, data: a });
      assert.deepEqual((await t.admin('GET', '/admin/instances/ins_00000000000000000000000000')).body, NOT_FOUND);
      assert.deepEqual((await t.admin('GET', '/admin/instances/no-such-key')).body, NOT_FOUND);
    });
  });

  describe('DELETE /admin/instances/{key}', () => {
    it('logs out and deletes the instance with its data; the key then answers 404; peers keep theirs', async () => {
      const alice = await t.connectedSandbox({ name: 'del-alice', number: '5511920000021' });
      const bob = await t.connectedSandbox({ name: 'del-bob', number: '5511920000022' });
      await t.request('PUT', `/${alice.key}/instance/profile/picture`, { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' });
      await t.request('POST', `/${alice.key}/message/text`, { to: '5511920000022', text: 'bye' });
      await t.waitFor(async () => (await t.request('GET', `/${bob.key}/chat/5511920000021/messages`)).body.total === 1, 5000, 'bob to receive');
      const storage = t.server.context.storage;
      assert.equal((await storage.messages.listByChat(alice.id, '5511920000022@s.whatsapp.net', { page: 1, limit: 10 })).total, 1);

      const res = await t.admin('DELETE', `/admin/instances/${alice.key}`);
      assert.deepEqual(res.body, { status: 200, message: 'Instance deleted' });
      await t.settle();
      const logout = t.events.filter((e) => e.instance === alice.id && e.type === 'connection' && (e as { status: string }).status === 'close');
      assert.deepEqual(logout.map((e) => (e as { loggedOut: boolean }).loggedOut), [true]);

      assert.deepEqual((await t.request('GET', `/${alice.key}/instance`)).body, NOT_FOUND);
      assert.deepEqual((await t.request('POST', `/${alice.key}/message/text`, { to: '5511920000022', text: 'x' })).body, NOT_FOUND);
      assert.deepEqual((await t.admin('GET', `/admin/instances/${alice.key}`)).body, NOT_FOUND);
      assert.deepEqual((await t.admin('GET', `/admin/instances/${alice.id}`)).body, NOT_FOUND);
      assert.ok(!(await t.admin('GET', '/admin/instances')).body.data.some((v: { id: string }) => v.id === alice.id));
      assert.equal(await storage.instances.get(alice.id), null);
      assert.equal((await storage.messages.listByChat(alice.id, '5511920000022@s.whatsapp.net', { page: 1, limit: 10 })).total, 0);
      assert.deepEqual(await storage.chats.list(alice.id), []);
      assert.equal(await storage.state.get(`${alice.id}:sandbox`, 'session'), null);
      assert.equal((await t.request('GET', `/sandbox/pictures/${alice.id}`)).status, 404);

      assert.equal((await t.request('GET', `/${bob.key}/chat/5511920000021/messages`)).body.total, 1);
      assert.equal((await t.request('GET', `/${bob.key}/instance`)).body.instance.phoneConnected, true);
      assert.deepEqual((await t.admin('DELETE', `/admin/instances/${alice.key}`)).body, NOT_FOUND);
    });

    it('deletes by public id too', async () => {
      const created = await t.createInstance({ number: '5511920000031' });
      assert.equal((await t.admin('DELETE', `/admin/instances/${created.id}`)).status, 200);
      assert.deepEqual((await t.request('GET', `/${created.key}/instance`)).body, NOT_FOUND);
    });
  });

  describe('authentication', () => {
    it('answers 401 without a token, with a wrong token or another scheme, on every admin route, changing nothing', async () => {
      const victim = await t.createInstance({ number: '5511920000041' });
      const count = (await t.admin('GET', '/admin/instances')).body.data.length;
      const routes: [string, string, unknown?][] = [
        ['POST', '/admin/instances', { name: 'intruder' }], ['GET', '/admin/instances'], ['GET', `/admin/instances/${victim.key}`], ['DELETE', `/admin/instances/${victim.key}`],
      ];
      for (const [method, path, body] of routes) {
        assert.deepEqual((await t.request(method, path, body)).body, TOKEN_REQUIRED, `${method} ${path} without token`);
        assert.deepEqual((await t.request(method, path, body, { authorization: `Basic ${Buffer.from(`admin:${t.adminToken}`).toString('base64')}` })).body, TOKEN_REQUIRED);
        assert.deepEqual((await t.request(method, path, body, { authorization: 'Bearer wrong-token-0123456789' })).body, TOKEN_INVALID, `${method} ${path} wrong token`);
        assert.deepEqual((await t.request(method, path, body, { authorization: `Bearer ${t.adminToken}x` })).body, TOKEN_INVALID);
        // An instance key is not an admin token.
        assert.deepEqual((await t.request(method, path, body, { authorization: `Bearer ${victim.key}` })).body, TOKEN_INVALID);
      }
      assert.equal((await t.admin('GET', '/admin/instances')).body.data.length, count);
      assert.equal((await t.request('GET', `/${victim.key}/instance`)).status, 200);
    });

    it('checks the token before the body', async () => {
      const res = await t.request('POST', '/admin/instances', { channel: 5 });
      assert.deepEqual(res.body, TOKEN_REQUIRED);
    });
  });
});
