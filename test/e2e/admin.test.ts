import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ParleyClient, type Operations } from '@parley/client';
import { apiError, apiErrorAnswer, type ErrorAnswer } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const DEFAULT_WEBHOOK = {
  allowWebhook: false, allowNumber: 'all', webhookFormat: 'native', webhookMessage: '', webhookGroup: '', webhookConnection: '',
  webhookQrCode: '', webhookMessageFromMe: '', webhookHistory: '',
};
const NOT_FOUND: ErrorAnswer = { status: 404, error: { code: 'instance_not_found', message: 'instance not found' } };
const TOKEN_REQUIRED: ErrorAnswer = { status: 401, error: { code: 'unauthorized', message: 'admin token required: Authorization: Bearer <token>' } };
const TOKEN_INVALID: ErrorAnswer = { status: 401, error: { code: 'unauthorized', message: 'invalid admin token' } };

describe('admin API', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.stop();
  });

  const admin = () => t.client();
  const instanceCount = async () => (await admin().call('adminListInstances')).data.length;

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
      const res = await admin().call('adminCreateInstance');
      assert.deepEqual(Object.keys(res), ['status', 'data']);
      assert.equal(res.status, 200);
      assertView(res.data, { name: '' });
      assert.equal((await t.client(res.data.key).call('getInstance')).status, 200);
    });

    it('creates with channel, name, webhook settings and options.number; the instance answers with them', async () => {
      const webhook = { allowWebhook: true, webhookFormat: 'meta', webhookMessage: 'https://hooks.example.com/in' };
      const res = await admin().call('adminCreateInstance', { body: { channel: 'sandbox', name: 'sales', webhook, options: { number: '5511920000001' } } });
      assert.equal(res.status, 200);
      assertView(res.data, { name: 'sales', number: '5511920000001', webhook: { ...DEFAULT_WEBHOOK, ...webhook } });
      const api = t.client(res.data.key);
      const { instance } = await api.call('getInstance');
      assert.equal(instance.id, res.data.id);
      assert.equal(instance.name, 'sales');
      assert.deepEqual(instance.webhook, { ...DEFAULT_WEBHOOK, ...webhook });
      // The chosen number is the phone's number: the pairing code is accepted for it only.
      assert.equal((await api.call('requestPairingCode', { body: { phoneNumber: '5511920000001' } })).status, 200);
    });

    it('issues keys of at least 128 bits, URL-safe, unique, distinct from ids and webhook secrets', async () => {
      const created = await Promise.all(Array.from({ length: 20 }, () => admin().call('adminCreateInstance', { body: {} })));
      const keys = created.map((r) => r.data.key);
      for (const key of keys) {
        assert.match(key, /^[A-Za-z0-9_-]+$/);
        assert.ok(key.length >= 22, key);
        assert.ok(Buffer.from(key, 'base64url').length >= 16);
        assert.equal(encodeURIComponent(key), key);
      }
      assert.equal(new Set(keys).size, 20);
      assert.equal(new Set(created.map((r) => r.data.id)).size, 20);
      assert.equal(new Set(created.map((r) => r.data.webhookSecret)).size, 20);
      assert.equal(new Set(created.map((r) => r.data.options!.number)).size, 20);
    });

    it('refuses bad input naming the field, creating nothing', async () => {
      const before = await instanceCount();
      await admin().call('adminCreateInstance', { body: { options: { number: '5511920000009' } } });
      const typed: [Operations['adminCreateInstance']['body'], number, string, string][] = [
        [{ channel: 'telegram' }, 400, 'validation_failed', 'body.channel "telegram" is not available; configured channels: sandbox'],
        [{ name: 'x'.repeat(201) }, 400, 'validation_failed', 'body.name must NOT have more than 200 characters'],
        [{ webhook: { webhookFormat: 'xml' } }, 400, 'validation_failed', 'body.webhook.webhookFormat must be one of native, meta, cloud-api, both'],
        [{ options: { number: '12ab' } }, 400, 'validation_failed', 'body.options.number must be a phone number with country code (8 to 15 digits)'],
        [{ options: { colour: 'red' } }, 400, 'validation_failed', 'body.options.colour is not allowed (the sandbox accepts only number)'],
        [{ options: { number: '5511920000009' } }, 409, 'number_taken', 'sandbox number 5511920000009 is taken'],
      ];
      for (const [body, status, code, message] of typed) {
        await assert.rejects(admin().call('adminCreateInstance', { body }), apiError(status, code, message), JSON.stringify(body));
      }
      // Bodies the typed client refuses (wrong types, unknown members, not an object): sent raw.
      const untyped: [unknown, string][] = [
        [{ channel: 5 }, 'body.channel must be string'],
        [{ name: ['a'] }, 'body.name must be string'],
        [{ key: 'my-own-key' }, 'body.key is not allowed'],
        [{ webhook: { allowWebhook: 1 } }, 'body.webhook.allowWebhook must be boolean'],
        [[], 'body must be a JSON object (Content-Type: application/json)'],
      ];
      for (const [body, message] of untyped) {
        const res = await t.admin('POST', '/admin/instances', body);
        const details = res.body.error?.details ? { details: res.body.error.details } : {};
        assert.deepEqual(res.body, { status: 400, error: { code: 'validation_failed', message, ...details } }, JSON.stringify(body));
      }
      assert.equal(await instanceCount(), before + 1);
    });
  });

  describe('GET /admin/instances and /admin/instances/{key}', () => {
    it('lists every instance with its admin view, and gets one by key or by public id', async () => {
      const a = (await admin().call('adminCreateInstance', { body: { name: 'list-a', options: { number: '5511920000011' } } })).data;
      const b = await t.connectedSandbox({ name: 'list-b', number: '5511920000012' });
      const list = await admin().call('adminListInstances');
      assert.equal(list.status, 200);
      assert.deepEqual(Object.keys(list), ['status', 'data']);
      const byId = new Map(list.data.map((v) => [v.id, v]));
      assert.deepEqual(byId.get(a.id), a);
      const bView = byId.get(b.id) as Record<string, any>;
      assertView(bView, { name: 'list-b', number: '5511920000012', phoneConnected: true });
      assert.deepEqual(bView.user, {
        id: '5511920000012@s.whatsapp.net', lid: bView.user.lid, name: 'list-b', imageProfile: `${t.server.context.host.publicUrl}/${b.key}/instance/profile/picture`,
      });
      for (const view of list.data as Record<string, any>[]) {
        assertView(view, { name: view.name, number: view.options.number, phoneConnected: view.phoneConnected, webhook: view.webhook });
      }

      const get = (key: string) => admin().call('adminGetInstance', { params: { key } });
      assert.deepEqual(await get(a.key), { status: 200, data: a });
      assert.deepEqual(await get(a.id), { status: 200, data: a });
      await assert.rejects(get('ins_00000000000000000000000000'), apiErrorAnswer(NOT_FOUND));
      await assert.rejects(get('no-such-key'), apiErrorAnswer(NOT_FOUND));
    });
  });

  describe('GET /admin/channels', () => {
    it('answers the configured default channel and every registered channel with its role and provider', async () => {
      const { data } = await admin().call('adminListChannels');
      assert.equal(data.default, t.server.context.config.defaultChannel);
      const registered = [...t.server.context.drivers.values()].map((d) => ({ name: d.name, role: d.role, provider: d.channel }));
      assert.deepEqual(data.channels, registered);
      assert.ok(data.channels.some((c) => c.name === 'sandbox' && c.role === 'main' && c.provider === 'whatsapp'));
      assert.ok(data.channels.some((c) => c.name === data.default), 'the default is a registered channel');
    });
  });

  describe('DELETE /admin/instances/{key}', () => {
    it('logs out and deletes the instance with its data; the key then answers 404; peers keep theirs', async () => {
      const alice = await t.connectedSandbox({ name: 'del-alice', number: '5511920000021' });
      const bob = await t.connectedSandbox({ name: 'del-bob', number: '5511920000022' });
      const aliceApi = t.client(alice.key);
      const bobApi = t.client(bob.key);
      const bobInbox = async () => (await bobApi.call('listChatMessages', { params: { jid: '5511920000021' } })).total;
      await aliceApi.call('setProfilePicture', { body: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' } });
      await aliceApi.call('sendText', { body: { to: '5511920000022', text: 'bye' } });
      await t.waitFor(async () => (await bobInbox()) === 1, 5000, 'bob to receive');
      const storage = t.server.context.storage;
      assert.equal((await storage.messages.listByChat(alice.id, '5511920000022@s.whatsapp.net', { page: 1, limit: 10 })).total, 1);

      const remove = (key: string) => admin().call('adminDeleteInstance', { params: { key } });
      assert.deepEqual(await remove(alice.key), { status: 200, message: 'Instance deleted' });
      await t.settle();
      const logout = t.events.filter((e) => e.instance === alice.id && e.type === 'connection' && (e as { status: string }).status === 'close');
      assert.deepEqual(logout.map((e) => (e as { loggedOut: boolean }).loggedOut), [true]);

      await assert.rejects(aliceApi.call('getInstance'), apiErrorAnswer(NOT_FOUND));
      await assert.rejects(aliceApi.call('sendText', { body: { to: '5511920000022', text: 'x' } }), apiErrorAnswer(NOT_FOUND));
      await assert.rejects(admin().call('adminGetInstance', { params: { key: alice.key } }), apiErrorAnswer(NOT_FOUND));
      await assert.rejects(admin().call('adminGetInstance', { params: { key: alice.id } }), apiErrorAnswer(NOT_FOUND));
      assert.ok(!(await admin().call('adminListInstances')).data.some((v) => v.id === alice.id));
      assert.equal(await storage.instances.get(alice.id), null);
      assert.equal((await storage.messages.listByChat(alice.id, '5511920000022@s.whatsapp.net', { page: 1, limit: 10 })).total, 0);
      assert.deepEqual(await storage.chats.list(alice.id), []);
      assert.equal(await storage.state.get(`${alice.id}:sandbox`, 'session'), null);
      await assert.rejects(admin().call('sandbox_get_pictures_id', { params: { id: alice.id } }), apiError(404, 'instance_not_found'));

      assert.equal(await bobInbox(), 1);
      assert.equal((await bobApi.call('getInstance')).instance.phoneConnected, true);
      await assert.rejects(remove(alice.key), apiErrorAnswer(NOT_FOUND));
    });

    it('deletes by public id too', async () => {
      const created = await t.createInstance({ number: '5511920000031' });
      assert.equal((await admin().call('adminDeleteInstance', { params: { key: created.id } })).status, 200);
      await assert.rejects(t.client(created.key).call('getInstance'), apiErrorAnswer(NOT_FOUND));
    });
  });

  describe('authentication', () => {
    it('answers 401 without a token, with a wrong token or another scheme, on every admin route, changing nothing', async () => {
      const victim = await t.createInstance({ number: '5511920000041' });
      const count = await instanceCount();
      const routes: [string, (client: ParleyClient) => Promise<unknown>][] = [
        ['adminCreateInstance', (c) => c.call('adminCreateInstance', { body: { name: 'intruder' } })],
        ['adminListInstances', (c) => c.call('adminListInstances')],
        ['adminGetInstance', (c) => c.call('adminGetInstance', { params: { key: victim.key } })],
        ['adminDeleteInstance', (c) => c.call('adminDeleteInstance', { params: { key: victim.key } })],
        ['adminListChannels', (c) => c.call('adminListChannels')],
      ];
      const caller = (options: { adminToken?: string; headers?: Record<string, string> }) => new ParleyClient({ baseUrl: t.url, ...options });
      const callers: [string, ParleyClient, ErrorAnswer][] = [
        ['without token', caller({}), TOKEN_REQUIRED],
        ['with the Basic scheme', caller({ headers: { authorization: `Basic ${Buffer.from(`admin:${t.adminToken}`).toString('base64')}` } }), TOKEN_REQUIRED],
        ['with a wrong token', caller({ adminToken: 'wrong-token-0123456789' }), TOKEN_INVALID],
        ['with the token and one more character', caller({ adminToken: `${t.adminToken}x` }), TOKEN_INVALID],
        // An instance key is not an admin token.
        ['with an instance key', caller({ adminToken: victim.key }), TOKEN_INVALID],
      ];
      for (const [operation, call] of routes) {
        for (const [how, client, answer] of callers) await assert.rejects(call(client), apiErrorAnswer(answer), `${operation} ${how}`);
      }
      assert.equal(await instanceCount(), count);
      assert.equal((await t.client(victim.key).call('getInstance')).status, 200);
    });

    it('checks the token before the body', async () => {
      // A wrong type, which the typed client refuses: sent raw.
      const res = await t.request('POST', '/admin/instances', { channel: 5 });
      assert.deepEqual(res.body, TOKEN_REQUIRED);
    });
  });
});
