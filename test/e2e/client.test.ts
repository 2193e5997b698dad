import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ParleyApiError, ParleyClient } from '@parley/client';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** @parley/client against the real server: a whole sandbox conversation through typed calls only. */
describe('@parley/client end to end', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.stop();
  });

  it('creates instances, connects them, sends a text and reads the chat', async () => {
    const admin = t.client();
    const health = await admin.call('healthz');
    assert.equal(health.data.status, 'ok');

    const alice = (await admin.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'alice', options: { number: '5511980000001' } } })).data;
    const bob = (await admin.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'bob', options: { number: '5511980000002' } } })).data;
    assert.match(alice.key, /^[A-Za-z0-9_-]{22,}$/);
    const listed = await admin.call('adminListInstances');
    assert.deepEqual(listed.data.map((i) => i.name).sort(), ['alice', 'bob']);

    for (const instance of [alice, bob]) {
      const api = t.client(instance.key);
      const qr = await api.call('connectInstance');
      assert.equal(qr.phoneConnected, false);
      assert.match(qr.image, /^data:image\/png;base64,/);
      const scanned = await api.call('sandbox_post_key_scan');
      assert.deepEqual(scanned, { status: 200, data: { phoneConnected: true, user: (scanned as { data: { user: unknown } }).data.user } });
    }
    await t.settle();

    const aliceApi = t.client(alice.key);
    const bobApi = t.client(bob.key);
    const me = await aliceApi.call('getInstance');
    assert.equal(me.instance.phoneConnected, true);
    assert.equal(me.instance.user?.id, '5511980000001@s.whatsapp.net');

    assert.deepEqual(await bobApi.call('updateInstanceFlags', { query: { markMessageRead: true } }), { status: 200, message: 'Instance settings updated' });
    const sent = await aliceApi.call('sendText', { body: { to: '5511980000002', text: 'hello from the client' } });
    assert.equal(sent.data.status, 'PENDING');
    assert.deepEqual(sent.data.message, { extendedTextMessage: { text: 'hello from the client' } });

    const inbox = (await t.waitFor(async () => {
      const page = await bobApi.call('listChatMessages', { params: { jid: '5511980000001@s.whatsapp.net' }, query: { page: 1, limit: 10 } });
      return page.total === 1 ? page : undefined;
    }, 5000, 'bob to receive'))!;
    assert.deepEqual(inbox.data[0]!.key, { remoteJid: '5511980000001@s.whatsapp.net', fromMe: false, id: sent.data.key.id });
    assert.equal(inbox.page, 1);
    assert.equal(inbox.limit, 10);
    const chats = await bobApi.call('listChats');
    assert.deepEqual(chats.data.map((c) => [c.id, c.name]), [['5511980000001@s.whatsapp.net', 'alice']]);

    await t.waitFor(async () => {
      const mine = await aliceApi.call('listChatMessages', { params: { jid: '5511980000002' } });
      return mine.data[0]?.status === 'READ';
    }, 5000, 'the read receipt');

    const stats = await aliceApi.call('webhookStatistics');
    assert.deepEqual(Object.keys(stats.data).sort(), ['avgResponseTime', 'totalFailed', 'totalPending', 'totalSent']);

    const spec = await admin.call('openapi');
    assert.equal(spec.openapi, '3.1.0');
  });

  it('throws ParleyApiError with the server\'s error model', async () => {
    const admin = t.client();
    const created = (await admin.call('adminCreateInstance', { body: { name: 'offline', options: { number: '5511980000003' } } })).data;
    await assert.rejects(t.client(created.key).call('sendText', { body: { to: '5511980000001', text: 'x' } }), (err: unknown) => {
      assert.ok(err instanceof ParleyApiError);
      assert.equal(err.status, 409);
      assert.equal(err.code, 'not_connected');
      return true;
    });
    await assert.rejects(t.client(created.key).call('requestPairingCode', { body: { phoneNumber: 'abc' } }), {
      name: 'ParleyApiError', status: 400, code: 'validation_failed', message: 'body.phoneNumber must match pattern "^\\+?\\d{6,15}$"',
    });
    await assert.rejects(t.client('no-such-key-AAAAAAAAAAAAAAAAAA').call('getInstance'), { status: 404, code: 'instance_not_found', message: 'instance not found' });
    const anonymous = new ParleyClient({ baseUrl: t.url });
    await assert.rejects(anonymous.call('adminListInstances'), { status: 401, code: 'unauthorized' });
    const wrong = new ParleyClient({ baseUrl: t.url, adminToken: 'wrong-token-0123456789' });
    await assert.rejects(wrong.call('adminListInstances'), { status: 401, code: 'unauthorized', message: 'invalid admin token' });
    await assert.rejects(t.client(created.key).call('mobileVerify', { body: { code: '123456' } }), {
      status: 409, code: 'not_prepared', message: 'no registration is prepared: call POST /{key}/instance/mobile/prepare first',
    });
  });

  it('answers binary content as bytes', async () => {
    const alice = await t.connectedSandbox({ name: 'pic', number: '5511980000004' });
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    await t.client(alice.key).call('setProfilePicture', { body: { url: `data:image/png;base64,${png}` } });
    const picture = await t.client().call('sandbox_get_pictures_id', { params: { id: alice.id } });
    assert.ok(picture instanceof Uint8Array, 'a PNG answer is bytes');
    assert.deepEqual(Buffer.from(picture as Uint8Array), Buffer.from(png, 'base64'));
  });
});
