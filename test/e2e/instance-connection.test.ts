import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { apiError } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** What a send answers while the sandbox instance waits to be paired. */
describe('sending before the pairing is done, over real HTTP', () => {
  let t: TestServer;
  const get = async (key: string) => (await t.client(key).call('getInstance')).instance;

  before(async () => { t = await startTestServer(); });
  after(() => t.stop());

  it('answers 409 not_connected saying what the instance waits for: the QR scan, or the pairing code', async () => {
    const created = await t.createInstance({ number: '5511910000031' });
    const api = t.client(created.key);
    const send = () => api.call('sendText', { body: { to: '5511910000032', text: 'too early' } });
    await assert.rejects(send(), apiError(409, 'not_connected', 'the instance is not connected: connect it with POST /{key}/instance first'));
    await api.call('connectInstance');
    await assert.rejects(send(), apiError(409, 'not_connected',
      'the instance is not connected: waiting for QR scan (the QR code is answered by POST /{key}/instance and sent as qrcode events)'));
    assert.deepEqual((await get(created.key)).connection, { status: 'waiting_for_qr_scan' });
    const raw = await t.request('POST', `/${created.key}/message/text`, { to: '5511910000032', text: 'too early' });
    assert.deepEqual(raw.body.error.details, { status: 'waiting_for_qr_scan' });
    await api.call('requestPairingCode', { body: { phoneNumber: '5511910000031' } });
    await assert.rejects(send(), apiError(409, 'not_connected', 'the instance is not connected: waiting for the pairing code to be entered on the phone'));
    assert.deepEqual((await get(created.key)).connection, { status: 'waiting_for_pairing_code' });
  });
});

/**
 * The WhatsApp channel on Baileys' real socket, with WhatsApp out of reach: the plugin's `webSocketUrl`
 * points at a loopback port nobody listens on, so every attempt is refused and nothing leaves the machine.
 */
describe('WhatsApp unreachable, over real HTTP', () => {
  let t: TestServer;

  before(async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/webhook-native' },
        {
          package: '@parley/channel-baileys',
          options: {
            webSocketUrl: `ws://127.0.0.1:${port}/ws/chat`, connectTimeoutMs: 1000, logLevel: 'silent',
            reconnect: { maxAttempts: 3, baseDelayMs: 60_000, maxDelayMs: 60_000, jitter: 0 },
          },
        },
      ],
      config: { defaultChannel: 'whatsapp' },
    });
  });
  after(() => t.stop());

  it('POST /{key}/instance answers at once with the true state: connecting, the last error and its cause', async () => {
    const created = await t.createInstance({ channel: 'whatsapp' });
    const api = t.client(created.key);
    const started = Date.now();
    const res = await api.call('connectInstance');
    assert.ok(Date.now() - started < 3000, `answered in ${Date.now() - started} ms`);
    assert.deepEqual({ ...res, connection: { ...res.connection, lastError: undefined } }, {
      status: 200, phoneConnected: false, qrcode: '', image: '', user: null, connection: { status: 'connecting', lastError: undefined },
    });
    const lastError = res.connection!.lastError!;
    assert.deepEqual([lastError.code, lastError.reason, lastError.cause], [408, 'connectionLost', 'refused']);
    assert.match(lastError.message, /^WebSocket Error \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/);

    const instance = (await api.call('getInstance')).instance;
    assert.deepEqual([instance.phoneConnected, instance.health], [false, 'healthy']);
    assert.deepEqual(instance.connection, { status: 'connecting', lastError });

    await assert.rejects(api.call('sendText', { body: { to: '5511900000002', text: 'hello' } }), apiError(409, 'not_connected',
      `the instance is not connected: connecting (last attempt: ${lastError.message}, refused)`));
    const raw = await t.request('POST', `/${created.key}/message/text`, { to: '5511900000002', text: 'hello' });
    assert.deepEqual(raw.body.error.details, { status: 'connecting', lastError });
  });
});
