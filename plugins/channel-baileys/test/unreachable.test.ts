import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ConnectionState } from '@parley/core';
import { createHarness, type Harness } from './harness.js';

/**
 * WhatsApp out of reach, with Baileys' real socket (`makeWASocket`) pointed at local endpoints through
 * `webSocketUrl` (Baileys' `waWebSocketUrl`): nothing leaves the machine.
 */
describe('connection: WhatsApp unreachable (real Baileys socket)', () => {
  let refusedPort: number;
  let silent: Server;
  const held: Socket[] = [];

  before(async () => {
    // A port nobody listens on: bound, then released.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    refusedPort = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    // A port that accepts the TCP connection and never answers the WebSocket upgrade.
    silent = createServer((socket) => { held.push(socket); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  /** An adapter on Baileys' real socket; no retry within the test's time. */
  const harness = (webSocketUrl: string): Promise<Harness> => createHarness({
    realSockets: true,
    options: { webSocketUrl, connectTimeoutMs: 1000, qrWaitMs: 5000, logLevel: 'silent', reconnect: { baseDelayMs: 60_000, maxDelayMs: 60_000, jitter: 0 } },
  });

  /** Connects, checks the answer came at once without a QR, and answers the state after it. */
  const connectOnce = async (h: Harness, withinMs: number): Promise<ConnectionState> => {
    const started = Date.now();
    const result = await h.adapter.capabilities.connection!.connect();
    const took = Date.now() - started;
    assert.ok(took < withinMs, `connect answered in ${took} ms`);
    assert.deepStrictEqual(result, { phoneConnected: false, qrcode: '', image: '', user: null });
    return h.adapter.capabilities.connection!.state();
  };

  it('connection refused: connect answers at once; the state is connecting, with the cause', async () => {
    const h = await harness(`ws://127.0.0.1:${refusedPort}/ws/chat`);
    const state = await connectOnce(h, 2000);
    assert.equal(state.status, 'connecting');
    assert.equal(state.phoneConnected, false);
    assert.deepStrictEqual({ ...state.lastError, message: undefined }, { code: 408, reason: 'connectionLost', cause: 'refused', message: undefined, at: state.lastError!.at });
    assert.match(state.lastError!.message, /ECONNREFUSED/);
    assert.deepStrictEqual(h.eventsOf('connection'), [], 'an attempt that never opened is not a connection-close');
    await h.adapter.stop();
  });

  it('host not found (DNS): the cause is dns', async () => {
    // A 64-character label is no valid DNS name: the resolver refuses it without sending a query.
    const h = await harness(`ws://${'x'.repeat(64)}.invalid/ws/chat`);
    const state = await connectOnce(h, 2000);
    assert.equal(state.status, 'connecting');
    assert.equal(state.lastError?.cause, 'dns');
    assert.match(state.lastError!.message, /ENOTFOUND/);
    await h.adapter.stop();
  });

  it('no answer: the WebSocket handshake times out after connectTimeoutMs; the cause is timeout', async () => {
    const h = await harness(`ws://127.0.0.1:${(silent.address() as { port: number }).port}/ws/chat`);
    const state = await connectOnce(h, 3000);
    assert.equal(state.status, 'connecting');
    assert.equal(state.lastError?.cause, 'timeout');
    assert.equal(state.lastError?.code, 408);
    await h.adapter.stop();
  });

  /** A loopback server for one test; answers its ws:// URL. */
  const serve = async (server: Server): Promise<{ url: string; close(): Promise<void> }> => {
    const open = new Set<Socket>();
    server.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return {
      url: `127.0.0.1:${port}/ws/chat`,
      close: () => new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
    };
  };

  it('an HTTP answer instead of the WebSocket upgrade: Baileys listens to unexpected-response, so the handshake times out', async () => {
    const endpoint = await serve(createHttpServer((_req, res) => res.writeHead(404).end()) as unknown as Server);
    const h = await harness(`ws://${endpoint.url}`);
    const state = await connectOnce(h, 3000);
    assert.deepStrictEqual([state.status, state.lastError?.cause, state.lastError?.code], ['connecting', 'timeout', 408]);
    await h.adapter.stop();
    await endpoint.close();
  });

  it('the connection dropped during the handshake: the cause is reset', async () => {
    const endpoint = await serve(createServer((socket) => socket.resetAndDestroy()));
    const h = await harness(`ws://${endpoint.url}`);
    const state = await connectOnce(h, 2000);
    assert.deepStrictEqual([state.status, state.lastError?.cause], ['connecting', 'reset']);
    await h.adapter.stop();
    await endpoint.close();
  });

  it('TLS to an endpoint that does not speak it: the cause is tls', async () => {
    const endpoint = await serve(createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')));
    const h = await harness(`wss://${endpoint.url}`);
    const state = await connectOnce(h, 2000);
    assert.deepStrictEqual([state.status, state.lastError?.cause], ['connecting', 'tls']);
    assert.match(state.lastError!.message, /wrong version number/);
    await h.adapter.stop();
    await endpoint.close();
  });

  it('a pairing-code request while WhatsApp is unreachable answers 502 with the cause', async () => {
    const h = await harness(`ws://127.0.0.1:${refusedPort}/ws/chat`);
    await assert.rejects(h.adapter.capabilities.connection!.requestPairingCode('5511900000001'), (err: Error & { status?: number; code?: string }) => {
      assert.equal(err.status, 502);
      assert.match(err.message, /^WhatsApp could not be reached: WebSocket Error \(connect ECONNREFUSED 127\.0\.0\.1:\d+\) \(refused\)$/);
      return true;
    });
    await h.adapter.stop();
  });
});
