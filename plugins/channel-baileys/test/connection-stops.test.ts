import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import QRCode from 'qrcode';
import { connectOpen, createHarness, INSTANCE_ID, ME, NOW } from './harness.js';

const QR1 = '2@Yx9Kq0v1AbCdEfGh,IjKlMnOpQrStUv==,WxYz0123456789==,AbCdEf==';
const QR2 = '2@Zz9Kq0v1AbCdEfGh,IjKlMnOpQrStUv==,WxYz0123456789==,AbCdEf==';
// The account, not this device: Baileys' `me.id` carries the device (`:12`).
const OPEN_USER = { id: '5511900000001@s.whatsapp.net', lid: '80000000000001@lid', name: 'Parley Test' };

// Baileys' messages for these closes (Socket/socket.js): stream errors (440 `conflict`, via
// Utils/generics.js getErrorCodeFromStreamError), a `failure` stanza (403), `downgrade_webclient` (411).
const FINAL = [
  { code: 440, message: 'Stream Errored (conflict)', reason: 'connectionReplaced',
    text: 'another WhatsApp Web session of this account replaced this one; reconnecting would close that session in turn' },
  { code: 403, message: 'Connection Failure', reason: 'forbidden', text: 'WhatsApp refused the connection (403 forbidden): the number may be banned' },
  { code: 411, message: 'Multi-device beta not joined', reason: 'multideviceMismatch',
    text: 'the phone refused this linked device (multi-device mismatch); link it again from the phone' },
];

describe('connection: closes no retry can fix', () => {
  afterEach(() => mock.timers.reset());

  for (const { code, message, reason, text } of FINAL) {
    it(`${code} ${reason}: one connection-close with the reason, no reconnect, state stopped; an explicit connect starts over`, async () => {
      mock.timers.enable({ apis: ['setTimeout'] });
      const h = await createHarness({ options: { reconnect: { baseDelayMs: 100, maxDelayMs: 1000, jitter: 0 } } });
      const socket = await connectOpen(h);
      socket.close(code, message);
      await h.settle();
      // Far past every backoff delay: no new socket, no second event.
      mock.timers.tick(3_600_000);
      await h.settle();
      assert.equal(h.sockets.all.length, 1);
      assert.deepStrictEqual(h.events.filter((e) => e.type === 'connection'), [
        { type: 'connection', status: 'close', code, reason, loggedOut: false, willReconnect: false },
      ]);
      assert.deepStrictEqual(h.adapter.capabilities.connection!.state(), {
        phoneConnected: false, user: OPEN_USER, status: 'stopped', failure: { code, reason, attempts: 0 },
        lastError: { code, reason, message: text, at: NOW },
      });
      assert.equal(h.logs.some((l) => l.level === 'error' && l.msg === `WhatsApp connection stopped: ${text}`), true);
      // The session is kept: the user reconnects it explicitly (POST /{key}/instance).
      assert.equal(Object.keys(await h.storage.authState.get(INSTANCE_ID, 'creds', ['creds'])).length, 1);
      const connecting = h.adapter.capabilities.connection!.connect();
      const again = await h.sockets.next(2);
      assert.equal(again.handshake, 'login');
      again.open(ME);
      assert.deepStrictEqual(await connecting, { phoneConnected: true, qrcode: '', image: '', user: OPEN_USER });
      assert.deepStrictEqual(h.adapter.capabilities.connection!.state(), { phoneConnected: true, user: OPEN_USER, status: 'open' });
      await h.adapter.stop();
    });
  }

  it('a final close while connecting answers the waiting connect at once', async () => {
    const h = await createHarness();
    const connecting = h.adapter.capabilities.connection!.connect();
    (await h.sockets.next(1)).close(440, 'Stream Errored (conflict)');
    assert.deepStrictEqual(await connecting, { phoneConnected: false, qrcode: '', image: '', user: null });
    assert.equal(h.adapter.capabilities.connection!.state().status, 'stopped');
    assert.deepStrictEqual(h.eventsOf('connection').map((e) => [e.status, e.code]), [['close', 440]]);
    await h.adapter.stop();
  });
});

describe('connection: a QR code nobody scans', () => {
  afterEach(() => mock.timers.reset());

  it('QR refs ended (408): one close with reason qr_timeout and willReconnect false, no further QR codes, state stopped', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const h = await createHarness({ options: { reconnect: { baseDelayMs: 100, maxDelayMs: 100, jitter: 0 } } });
    const connecting = h.adapter.capabilities.connection!.connect();
    const socket = await h.sockets.next(1);
    socket.showQr(QR1);
    await connecting;
    socket.close(408, 'QR refs attempts ended');
    await h.settle();
    mock.timers.tick(3_600_000);
    await h.settle();
    assert.equal(h.sockets.all.length, 1, 'no new socket showing QR codes to nobody');
    const text = 'the QR code was not scanned before WhatsApp stopped issuing new ones; connect again for a new QR code';
    assert.deepStrictEqual(h.eventsOf('connection'), [
      { type: 'connection', status: 'close', code: 408, reason: 'qr_timeout', loggedOut: false, willReconnect: false },
    ]);
    assert.deepStrictEqual(h.adapter.capabilities.connection!.state(), {
      phoneConnected: false, user: null, status: 'stopped', failure: { code: 408, reason: 'qr_timeout', attempts: 0 },
      lastError: { code: 408, reason: 'qr_timeout', message: text, at: NOW },
    });
    assert.equal(h.logs.some((l) => l.level === 'warn' && l.msg === `WhatsApp connection stopped: ${text}`), true);
    // A connection lost with the same code is still retried.
    const again = h.adapter.capabilities.connection!.connect();
    (await h.sockets.next(2)).open(ME);
    await again;
    h.sockets.all[1]!.close(408, 'Connection was lost');
    await h.settle();
    mock.timers.tick(100);
    assert.equal((await h.sockets.next(3)).handshake, 'login');
    await h.adapter.stop();
  });
});

describe('connection: an unused pairing code', () => {
  afterEach(() => mock.timers.reset());

  it('the code expiring (QR refs ended, 408) forgets the pending number, keeps the keys, and shows a QR again', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const h = await createHarness({ options: { reconnect: { baseDelayMs: 100, maxDelayMs: 100, jitter: 0 } } });
    const connection = h.adapter.capabilities.connection!;
    const pairing = connection.requestPairingCode('5511900000001');
    const socket = await h.sockets.next(1);
    socket.showQr(QR1);
    assert.equal(await pairing, 'ABCD-1234');
    await h.settle();
    // As in Baileys: the number is `creds.me` at once, and the creds are stored.
    assert.deepStrictEqual(socket.user, { id: '5511900000001@s.whatsapp.net', name: '~' });
    const stored = await h.storage.authState.get(INSTANCE_ID, 'creds', ['creds']);
    assert.match(stored.creds!, /5511900000001@s\.whatsapp\.net/);
    assert.equal(connection.state().status, 'waiting_for_pairing_code');

    socket.close(408, 'QR refs attempts ended');
    await h.settle();
    assert.equal(socket.config.auth.creds.me, undefined);
    assert.doesNotMatch((await h.storage.authState.get(INSTANCE_ID, 'creds', ['creds'])).creds!, /5511900000001@s\.whatsapp\.net/);
    assert.equal(connection.state().status, 'connecting');
    mock.timers.tick(100);
    const next = await h.sockets.next(2);
    // A new pairing, not a login as the number that never linked.
    assert.equal(next.handshake, 'registration');
    assert.equal(next.config.auth.creds.noiseKey, socket.config.auth.creds.noiseKey);
    next.showQr(QR2);
    await h.settle();
    assert.equal(connection.state().status, 'waiting_for_qr_scan');
    assert.deepStrictEqual(h.eventsOf('connection'), [], 'nothing was logged out');
    // A new code can be asked for on the new QR.
    assert.equal(await connection.requestPairingCode('5511900000001'), 'ABCD-1234');
    await h.adapter.stop();
  });

  it('a server restart during pairing: the refused login (401) is no logout; connect answers a fresh QR', async () => {
    const h = await createHarness();
    const pairing = h.adapter.capabilities.connection!.requestPairingCode('5511900000001');
    (await h.sockets.next(1)).showQr(QR1);
    await pairing;
    await h.settle();
    await h.adapter.stop();

    const again = await createHarness({ storage: h.storage });
    const connecting = again.adapter.capabilities.connection!.connect();
    const stale = await again.sockets.next(1);
    assert.equal(stale.handshake, 'login');
    stale.close(401, 'Connection Failure');
    const fresh = await again.sockets.next(2);
    assert.equal(fresh.handshake, 'registration');
    fresh.showQr(QR2);
    assert.deepStrictEqual(await connecting, { phoneConnected: false, qrcode: QR2, image: await QRCode.toDataURL(QR2), user: null });
    assert.deepStrictEqual(again.eventsOf('connection'), []);
    assert.equal(again.adapter.capabilities.connection!.state().status, 'waiting_for_qr_scan');
    await again.adapter.stop();
  });

  it('a linked session refused with 401 is still a logout', async () => {
    const h = await createHarness();
    const socket = await connectOpen(h);
    socket.close(401, 'Connection Failure');
    await h.settle();
    assert.deepStrictEqual(h.events, [{ type: 'connection', status: 'close', code: 401, reason: 'loggedOut', loggedOut: true, willReconnect: false }]);
    assert.deepStrictEqual(await h.storage.authState.get(INSTANCE_ID, 'creds', ['creds']), {});
  });
});
