import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { ALL_WA_PATCH_NAMES, proto } from '@whiskeysockets/baileys';
import { HttpsProxyAgent } from 'https-proxy-agent';
import QRCode from 'qrcode';
import { SocksProxyAgent } from 'socks-proxy-agent';
import { BoundedCache } from '../src/util/bounded-cache.js';
import { connectOpen, createHarness, INSTANCE_ID, ME, NOW, OWN_JID } from './harness.js';

const QR1 = '2@Yx9Kq0v1AbCdEfGh,IjKlMnOpQrStUv==,WxYz0123456789==,AbCdEf==';
const QR2 = '2@Zz9Kq0v1AbCdEfGh,IjKlMnOpQrStUv==,WxYz0123456789==,AbCdEf==';
// The account, not this device: Baileys' `me.id` carries the device (`:12`).
const OPEN_USER = { id: '5511900000001@s.whatsapp.net', lid: '80000000000001@lid', name: 'Parley Test' };

describe('connection: QR, pairing code, open', () => {
  it('connect answers the QR as raw string and PNG data URI, and every QR refresh emits qrcode', async () => {
    const h = await createHarness();
    const connecting = h.adapter.capabilities.connection!.connect();
    const socket = await h.sockets.next(1);
    socket.showQr(QR1);
    const result = await connecting;
    const image1 = await QRCode.toDataURL(QR1);
    assert.deepStrictEqual(result, { phoneConnected: false, qrcode: QR1, image: image1, user: null });
    assert.match(image1, /^data:image\/png;base64,/);
    socket.showQr(QR2);
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { type: 'qrcode', qr: QR1, image: image1 },
      { type: 'qrcode', qr: QR2, image: await QRCode.toDataURL(QR2) },
    ]);
    // A second connect while pairing answers the current QR without a new socket.
    assert.deepStrictEqual(await h.adapter.capabilities.connection!.connect(), {
      phoneConnected: false, qrcode: QR2, image: await QRCode.toDataURL(QR2), user: null,
    });
    assert.equal(h.sockets.all.length, 1);
    await h.adapter.stop();
  });

  it('connection-open: code 200 with the user id, LID and name; state and connect follow', async () => {
    const h = await createHarness();
    const connecting = h.adapter.capabilities.connection!.connect();
    (await h.sockets.next(1)).open(ME);
    assert.deepStrictEqual(await connecting, { phoneConnected: true, qrcode: '', image: '', user: OPEN_USER });
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('connection'), [{ type: 'connection', status: 'open', code: 200, user: OPEN_USER }]);
    assert.deepStrictEqual(h.adapter.capabilities.connection!.state(), { phoneConnected: true, user: OPEN_USER, status: 'open' });
    assert.deepStrictEqual(await h.adapter.capabilities.connection!.connect(), { phoneConnected: true, qrcode: '', image: '', user: OPEN_USER });
    await h.adapter.stop();
  });

  it('builds the socket with storage-backed auth, bounded caches, no own-event echo and a getMessage reading storage', async () => {
    const h = await createHarness({ options: { browserName: 'Acme', markOnlineOnConnect: true } });
    await h.storage.messages.upsert(INSTANCE_ID, {
      key: { remoteJid: OWN_JID, fromMe: true, id: 'M1' }, message: { conversation: 'retry me' }, messageTimestamp: '1', status: 'PENDING',
    });
    const socket = await connectOpen(h);
    const config = socket.config;
    assert.deepStrictEqual([config.browser, config.markOnlineOnConnect, config.emitOwnEvents, config.syncFullHistory], [
      ['Acme', 'Chrome', '22.04.4'], true, false, false,
    ]);
    for (const cache of [config.msgRetryCounterCache, config.userDevicesCache, config.callOfferCache, config.placeholderResendCache]) {
      assert.ok(cache instanceof BoundedCache);
    }
    assert.deepStrictEqual(((await config.getMessage!({ id: 'M1' })) as proto.Message).toJSON(), proto.Message.fromObject({ conversation: 'retry me' }).toJSON());
    assert.equal(await config.getMessage!({ id: 'unknown' }), undefined);
    assert.equal(config.agent, undefined);
    await h.adapter.stop();
  });

  it('requestPairingCode answers XXXX-XXXX once the handshake is ready, on a socket named Chrome (Windows)', async () => {
    const h = await createHarness({ options: { browserName: 'Acme' } });
    const pairing = h.adapter.capabilities.connection!.requestPairingCode('+55 11 90000-0001');
    const socket = await h.sockets.next(1);
    socket.showQr(QR1);
    assert.equal(await pairing, 'ABCD-1234');
    assert.deepStrictEqual(socket.callsTo('requestPairingCode'), [['5511900000001']]);
    // WhatsApp refuses a pairing code for `Chrome (Acme)`: the display Baileys sends is `${browser[1]} (${browser[0]})`.
    assert.deepStrictEqual(socket.config.browser, ['Windows', 'Chrome', '10.0.22631']);
    await assert.rejects(h.adapter.capabilities.connection!.requestPairingCode('12ab'), { code: 'validation_failed' });
    socket.open(ME);
    await h.settle();
    await assert.rejects(h.adapter.capabilities.connection!.requestPairingCode('5511900000001'), { status: 409, code: 'already_connected' });
    await h.adapter.stop();
  });

  it('a pairing code asked for while a QR shows replaces the QR socket (named after browserName) with a pairing-code one', async () => {
    for (const syncFullHistory of [false, true]) {
      const h = await createHarness({ options: { browserName: 'Acme', syncFullHistory } });
      const connecting = h.adapter.capabilities.connection!.connect();
      const qrSocket = await h.sockets.next(1);
      qrSocket.showQr(QR1);
      await connecting;
      assert.deepStrictEqual(qrSocket.config.browser, syncFullHistory ? ['Mac OS', 'Desktop', '14.4.1'] : ['Acme', 'Chrome', '22.04.4']);
      const pairing = h.adapter.capabilities.connection!.requestPairingCode('5511900000001');
      const codeSocket = await h.sockets.next(2);
      assert.equal(qrSocket.ended, true);
      assert.deepStrictEqual(qrSocket.callsTo('requestPairingCode'), []);
      assert.deepStrictEqual(codeSocket.config.browser, ['Windows', 'Chrome', '10.0.22631']);
      codeSocket.showQr(QR2);
      assert.equal(await pairing, 'ABCD-1234');
      assert.deepStrictEqual(codeSocket.callsTo('requestPairingCode'), [['5511900000001']]);
      // The close of the replaced socket is no event and no failure.
      await h.settle();
      assert.deepStrictEqual(h.eventsOf('connection'), []);
      assert.equal(h.adapter.capabilities.connection!.state().status, 'waiting_for_pairing_code');
      await h.adapter.stop();
    }
  });

  it('resync asks for every app-state collection from the start (the synced versions forgotten); it needs an open connection', async () => {
    const h = await createHarness();
    await assert.rejects(h.adapter.capabilities.connection!.resync(), { status: 409, code: 'not_connected' });
    const socket = await connectOpen(h);
    await socket.authState.keys.set({ 'app-state-sync-version': { regular: { version: 7, hash: Buffer.alloc(128), indexValueMap: {} } } });
    await h.adapter.capabilities.connection!.resync();
    assert.deepStrictEqual(socket.callsTo('resyncAppState'), [[ALL_WA_PATCH_NAMES, false]]);
    const versions = await socket.authState.keys.get('app-state-sync-version', [...ALL_WA_PATCH_NAMES]);
    assert.deepStrictEqual(Object.values(versions).filter((v) => v !== undefined && v !== null), [], 'no collection keeps its synced version');
    await h.adapter.stop();
  });

  it('restart closes the socket and opens a new one with the same session', async () => {
    const h = await createHarness();
    const first = await connectOpen(h);
    await h.adapter.capabilities.connection!.restart();
    const second = await h.sockets.next(2);
    assert.equal(first.ended, true);
    assert.notEqual(second, first);
    assert.equal(second.config.auth.creds, first.config.auth.creds);
    assert.deepStrictEqual(h.eventsOf('connection'), []);
    await h.adapter.stop();
  });
});

describe('connection: proxy', () => {
  it('an http proxy with credentials is applied to the socket and to media transfers', async () => {
    const h = await createHarness({ instance: { proxy: 'http://user:s3cret@proxy.example:3128' } });
    const socket = await connectOpen(h);
    assert.ok(socket.config.agent instanceof HttpsProxyAgent);
    assert.ok(socket.config.fetchAgent instanceof HttpsProxyAgent);
    const agent = socket.config.agent as HttpsProxyAgent<string>;
    assert.deepStrictEqual([agent.proxy.hostname, agent.proxy.port, agent.proxy.username, agent.proxy.password], ['proxy.example', '3128', 'user', 's3cret']);
    assert.ok(!JSON.stringify(h.logs).includes('s3cret'));
    await h.adapter.stop();
  });

  it('a socks5 proxy uses the SOCKS agent', async () => {
    const h = await createHarness({ instance: { proxy: 'socks5://u:p@10.0.0.9:1080' } });
    const socket = await connectOpen(h);
    assert.ok(socket.config.agent instanceof SocksProxyAgent);
    assert.ok(socket.config.fetchAgent instanceof SocksProxyAgent);
    const { proxy } = socket.config.agent as SocksProxyAgent;
    assert.deepStrictEqual([proxy.host, proxy.port, proxy.type, proxy.userId, proxy.password], ['10.0.0.9', 1080, 5, 'u', 'p']);
    await h.adapter.stop();
  });

  it('an unsupported proxy scheme is refused before any socket exists', async () => {
    const h = await createHarness({ instance: { proxy: 'ftp://proxy.example:21' } });
    await assert.rejects(h.adapter.capabilities.connection!.connect(), { code: 'validation_failed', message: 'proxy scheme ftp is not supported (use http, https or socks)' });
    assert.equal(h.sockets.all.length, 0);
  });
});

describe('connection: reconnect, backoff, give up', () => {
  afterEach(() => mock.timers.reset());

  it('connection-close: reconnects with capped exponential backoff and jitter', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const h = await createHarness({ options: { reconnect: { baseDelayMs: 1000, maxDelayMs: 5000, jitter: 0.5 } }, random: () => 0.5 });
    const first = await connectOpen(h);
    first.close(428, 'Connection Closed');
    await h.settle();
    assert.deepStrictEqual(h.events, [{ type: 'connection', status: 'close', code: 428, reason: 'connectionClosed', loggedOut: false, willReconnect: true }]);
    // attempt 1: 1000 · (1 − 0.5·0.5) = 750 ms
    mock.timers.tick(749);
    await h.settle();
    assert.equal(h.sockets.all.length, 1);
    mock.timers.tick(1);
    const second = await h.sockets.next(2);
    // attempt 2 (a failure before opening): 2000 · 0.75 = 1500; attempt 3: 3000; attempt 4: capped 5000 · 0.75 = 3750
    const expectedDelays = [1500, 3000, 3750];
    let socket = second;
    for (const [i, delay] of expectedDelays.entries()) {
      socket.close(408);
      await h.settle();
      mock.timers.tick(delay - 1);
      await h.settle();
      assert.equal(h.sockets.all.length, i + 2, `no socket before ${delay} ms`);
      mock.timers.tick(1);
      socket = await h.sockets.next(i + 3);
    }
    // Opening resets the attempt count.
    socket.open(ME);
    await h.settle();
    assert.deepStrictEqual(h.adapter.capabilities.connection!.state(), { phoneConnected: true, user: OPEN_USER, status: 'open' });
    socket.close(503);
    await h.settle();
    mock.timers.tick(750);
    await h.sockets.next(6);
    // Only drops of an open connection are reported; failed attempts are logged.
    assert.deepStrictEqual(h.eventsOf('connection').map((e) => [e.status, e.code]), [['close', 428], ['open', 200], ['close', 503]]);
    await h.adapter.stop();
  });

  it('keeps reconnecting after transient closes (408, 428, 500, 503, network) for good, at the capped delay', { timeout: 30_000 }, async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const h = await createHarness({ options: { reconnect: { baseDelayMs: 100, maxDelayMs: 400, jitter: 0 } } });
    const first = await connectOpen(h);
    first.close(408);
    // An outage far longer than the ten attempts after which the adapter used to give up for good.
    const closes = [428, 500, 503, 408];
    for (let i = 0; i < 40; i++) {
      await h.settle();
      mock.timers.tick(Math.min(400, 100 * 2 ** i));
      const socket = await h.sockets.next(i + 2);
      socket.close(closes[i % closes.length]!);
    }
    await h.settle();
    const state = h.adapter.capabilities.connection!.state();
    assert.deepStrictEqual({ status: state.status, failure: state.failure }, { status: 'connecting', failure: undefined });
    // One close event, when the open connection dropped; it said a reconnection follows (the instance keeps wanting a connection).
    assert.deepStrictEqual(h.eventsOf('connection'), [
      { type: 'connection', status: 'close', code: 408, reason: 'connectionLost', loggedOut: false, willReconnect: true },
    ]);
    mock.timers.tick(400);
    (await h.sockets.next(42)).open(ME);
    await h.settle();
    assert.deepStrictEqual(h.adapter.capabilities.connection!.state(), { phoneConnected: true, user: OPEN_USER, status: 'open' });
    await h.adapter.stop();
  });

  it('a restart request after pairing (515) reconnects at once without counting an attempt', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const h = await createHarness({ options: { reconnect: { baseDelayMs: 1000, maxDelayMs: 1000, jitter: 0 } } });
    const connecting = h.adapter.capabilities.connection!.connect();
    const first = await h.sockets.next(1);
    first.showQr(QR1);
    await connecting;
    first.close(515);
    await h.settle();
    mock.timers.tick(0);
    const second = await h.sockets.next(2);
    second.open(ME);
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('connection').map((e) => e.status), ['open']);
    await h.adapter.stop();
  });

  it('stop closes the socket and no reconnection follows', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const h = await createHarness();
    const socket = await connectOpen(h);
    await h.adapter.stop();
    assert.equal(socket.ended, true);
    mock.timers.tick(600_000);
    await h.settle();
    assert.equal(h.sockets.all.length, 1);
    assert.deepStrictEqual(h.events, []);
  });
});

describe('connection: logout', () => {
  afterEach(() => mock.timers.reset());

  it('a logged-out close clears the auth state, the user and the labels, and does not reconnect', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const h = await createHarness();
    const socket = await connectOpen(h);
    await h.storage.state.put(`${INSTANCE_ID}:baileys.labels`, '1', { id: '1', name: 'x', color: 0 });
    socket.emit('creds.update', {});
    await h.settle();
    assert.equal(Object.keys(await h.storage.authState.get(INSTANCE_ID, 'creds', ['creds'])).length, 1);
    socket.close(401, 'Stream Errored (conflict)');
    await h.settle();
    assert.deepStrictEqual(h.events, [{ type: 'connection', status: 'close', code: 401, reason: 'loggedOut', loggedOut: true, willReconnect: false }]);
    assert.deepStrictEqual(h.adapter.capabilities.connection!.state(), {
      phoneConnected: false, user: null, status: 'disconnected', lastError: { code: 401, reason: 'loggedOut', message: 'Stream Errored (conflict)', at: NOW },
    });
    assert.deepStrictEqual(await h.storage.authState.get(INSTANCE_ID, 'creds', ['creds']), {});
    assert.deepStrictEqual(await h.storage.state.list(`${INSTANCE_ID}:baileys.labels`), []);
    mock.timers.tick(600_000);
    await h.settle();
    assert.equal(h.sockets.all.length, 1);
  });

  it('logout sends the logout request, clears the session and is idempotent', async () => {
    const h = await createHarness();
    const socket = await connectOpen(h);
    socket.emit('creds.update', {});
    await h.settle();
    await h.adapter.capabilities.connection!.logout();
    assert.equal(socket.callsTo('logout').length, 1);
    assert.deepStrictEqual(await h.storage.authState.get(INSTANCE_ID, 'creds', ['creds']), {});
    assert.deepStrictEqual(h.adapter.capabilities.connection!.state(), { phoneConnected: false, user: null, status: 'disconnected' });
    await h.adapter.capabilities.connection!.logout();
    assert.deepStrictEqual(h.events, [{ type: 'connection', status: 'close', code: 401, reason: 'loggedOut', loggedOut: true, willReconnect: false }]);
  });

  it('stored creds WhatsApp refuses are cleared and connect answers a fresh QR', async () => {
    const h = await createHarness();
    const first = await connectOpen(h);
    first.emit('creds.update', {});
    await h.settle();
    await h.adapter.stop();

    const again = await createHarness({ storage: h.storage });
    const connecting = again.adapter.capabilities.connection!.connect();
    const stale = await again.sockets.next(1);
    assert.equal(stale.handshake, 'login');
    stale.close(401);
    const fresh = await again.sockets.next(2);
    assert.equal(fresh.handshake, 'registration');
    assert.equal(fresh.config.auth.creds.account, undefined);
    fresh.showQr(QR1);
    assert.deepStrictEqual(await connecting, { phoneConnected: false, qrcode: QR1, image: await QRCode.toDataURL(QR1), user: null });
    await again.adapter.stop();
  });
});
