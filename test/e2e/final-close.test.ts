import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * A close after which the channel does not reconnect (the sandbox's QR code left unscanned until it
 * expires; on WhatsApp 440 connectionReplaced, 403, 411, or reconnection given up) ends the wish to be
 * connected: a restarted server does not start the connection again, only POST /{key}/instance does.
 */
describe('a final close survives a restart (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-final-close-'));
  let t: TestServer | undefined;
  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = () => startTestServer({ storage: 'sqlite', dataDir, sandbox: { qrRefreshMs: 100, maxQrRefreshes: 1 } });

  it('an expired QR code leaves the instance disconnected, also after a restart; an explicit connect starts again', async () => {
    t = await start();
    const created = await t.createInstance({ number: '5511910000071' });
    const api = () => t!.client(created.key);
    await api().call('connectInstance');
    await t.waitFor(() => t!.events.some((e) => e.type === 'connection' && e.status === 'close' && e.instance === created.id), 5000, 'the QR code to expire');
    const close = t.events.find((e) => e.type === 'connection' && e.status === 'close')!;
    assert.deepEqual([close.type === 'connection' && close.status === 'close' && [close.reason, close.willReconnect]], [['qr_timeout', false]]);
    assert.deepEqual((await api().call('getInstance')).instance.connection, { status: 'disconnected' });
    await t.settle();
    await t.stop();

    t = await start();
    // Restore would have issued a QR code within a refresh interval; wait several.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(t.events.filter((e) => e.instance === created.id && (e.type === 'qrcode' || e.type === 'connection')), []);
    assert.deepEqual((await api().call('getInstance')).instance.connection, { status: 'disconnected' });

    const again = await api().call('connectInstance');
    assert.equal(typeof again.qrcode, 'string');
    assert.deepEqual((await api().call('getInstance')).instance.connection, { status: 'waiting_for_qr_scan' });
  });
});
