import assert from 'node:assert/strict';
import { get } from 'node:https';
import type { Agent } from 'node:https';
import { createServer, type Server, type Socket } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { parseProxy } from '@parley/net';
import { startCountingListener, startHttpProxy, startSocksProxy, type ConnectSeen, type CountingListener, type LocalServer, type SocksSeen } from '@parley/testkit';
import { mediaDispatcher } from '../src/connection/media-dispatcher.js';
import { connectOpen, createHarness, type Harness } from './harness.js';
import { fixedResolver } from './web-host.js';

const PUBLIC = '93.184.215.14';
const REFUSED = 'the proxy proxy.shop.example points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)';
/** The proxy's name was public when the instance saved it; it resolves to loopback now. */
const resolveHost = fixedResolver({ 'proxy.shop.example': ['127.0.0.1'], 'shop.example': [PUBLIC], 'mmg.whatsapp.net': [PUBLIC] });

/**
 * The instance proxy's address is checked each time Baileys dials through it (WebSocket, uploads,
 * downloads), with Baileys' real socket (`makeWASocket`) for the WebSocket: it hands `agent` to `ws`
 * (Socket/Client/websocket.js) and maps the `ws` error to `WebSocket Error (<message>)`
 * (Socket/socket.js, `mapWebSocketError`).
 */
describe('the instance proxy is checked when WhatsApp is dialled through it', () => {
  let listener: CountingListener;
  let silent: Server;
  const held: Socket[] = [];
  let http: LocalServer<ConnectSeen>;
  let socks: LocalServer<SocksSeen>;
  let h: Harness | undefined;

  before(async () => {
    listener = await startCountingListener();
    // WhatsApp stand-in: accepts the tunnelled connection and never answers the upgrade.
    silent = createServer((socket) => { held.push(socket); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    http = await startHttpProxy(silentPort);
    socks = await startSocksProxy(silentPort);
  });
  afterEach(async () => {
    await h?.adapter.stop();
    h = undefined;
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await http.close();
    await socks.close();
    await listener.close();
  });

  /** An adapter on Baileys' real socket behind `proxy`; no retry within the test's time. */
  const realSocket = (proxy: string, allowPrivateUrls: boolean) => createHarness({
    realSockets: true, resolveHost, allowPrivateUrls, instance: { proxy },
    options: {
      webSocketUrl: 'ws://web.whatsapp.test/ws/chat', connectTimeoutMs: 1000, qrWaitMs: 5000, logLevel: 'silent',
      reconnect: { baseDelayMs: 60_000, maxDelayMs: 60_000, jitter: 0 },
    },
  });

  for (const scheme of ['http', 'https', 'socks5']) {
    it(`${scheme}: the connection attempt fails with the refusal as lastError; nothing connects to the proxy`, async () => {
      h = await realSocket(`${scheme}://u:p@proxy.shop.example:${listener.port}`, false);
      const result = await h.adapter.capabilities.connection!.connect();
      assert.deepStrictEqual(result, { phoneConnected: false, qrcode: '', image: '', user: null });
      const state = h.adapter.capabilities.connection!.state();
      assert.equal(state.status, 'connecting');
      assert.equal(state.lastError?.message, `WebSocket Error (${REFUSED})`);
      assert.equal(listener.connections(), 0);
    });
  }

  it('with private URLs allowed, the WebSocket is tunnelled through the proxy at the address its name resolves to', async () => {
    h = await realSocket(`http://u:p@proxy.shop.example:${http.port}`, true);
    await h.adapter.capabilities.connection!.connect();
    assert.deepStrictEqual(http.seen, [{ target: 'web.whatsapp.test:80', authorization: `Basic ${Buffer.from('u:p').toString('base64')}` }]);
    http.seen.length = 0;
  });

  it('with private URLs allowed, a SOCKS proxy carries the WebSocket too', async () => {
    h = await realSocket(`socks5h://su:sp@proxy.shop.example:${socks.port}`, true);
    await h.adapter.capabilities.connection!.connect();
    assert.deepStrictEqual(socks.seen, [{ host: 'web.whatsapp.test', port: 80, user: 'su', password: 'sp' }]);
    socks.seen.length = 0;
  });

  it('uploads (Baileys\' fetchAgent) are refused before connecting', async () => {
    h = await createHarness({ resolveHost, instance: { proxy: `http://proxy.shop.example:${listener.port}` } });
    const socket = await connectOpen(h);
    const agent = socket.config.fetchAgent as Agent;
    const failure = await new Promise<Error>((resolve) => {
      get('https://mmg.whatsapp.net/mms/image', { agent }, (res) => resolve(new Error(`answered ${res.statusCode}`))).on('error', resolve);
    });
    assert.equal(failure.message, REFUSED);
    assert.equal(listener.connections(), 0);
  });

  it('media downloads (the undici dispatcher) are refused before connecting', async () => {
    const dispatcher = mediaDispatcher({
      proxy: parseProxy(`socks5h://proxy.shop.example:${listener.port}`), allowPrivate: false, proxyGuard: { allowPrivate: false, resolve: resolveHost },
    });
    const failure = await fetch('https://mmg.whatsapp.net/v/t62/img.enc', { dispatcher } as RequestInit).then(() => undefined, (err: Error) => err);
    assert.equal((failure?.cause as Error | undefined)?.message, REFUSED);
    assert.equal(listener.connections(), 0);
  });

  it('a catalog image fetched through the proxy is a 400 naming the field and the proxy', async () => {
    h = await createHarness({ resolveHost, instance: { proxy: `http://proxy.shop.example:${listener.port}` } });
    await connectOpen(h);
    await assert.rejects(h.adapter.capabilities.catalog!.createProduct({
      name: 'Mug', description: '', currency: 'BRL', price: 20, originCountryCode: 'BR', images: [{ url: 'http://shop.example/mug.png' }],
    }), { status: 400, code: 'validation_failed', message: `images[0].url could not be fetched: ${REFUSED}` });
    assert.equal(listener.connections(), 0);
  });
});
