import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { apiError } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

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
  });
});
