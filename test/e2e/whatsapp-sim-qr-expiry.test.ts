import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/** A short reconnect policy: a retry after the expiry, if there were one, would show within the wait below. */
const RECONNECT = { baseDelayMs: 100, maxDelayMs: 500, jitter: 0 };

/** Each QR code's life (the plugin's `qrTimeoutMs`, Baileys' `qrTimeout`), here and in the simulator. */
const QR_MS = 3_000;

/**
 * Issue 25 defect 11, QR expiry on the simulator: the simulator hands out a single QR ref (WhatsApp hands
 * out six, 60 s then 20 s each; one ref living `QR_MS` keeps the test short). Nobody scans it, Baileys ends
 * the socket itself with 408 "QR refs attempts ended", and Parley reports it as docs/rest-api.md says: one
 * close event {code 408, reason `qr_timeout`, willReconnect false}, `stopped` with that failure, the wish
 * to be connected cleared and no retry; an explicit connect shows a new QR code.
 */
describe('a QR code nobody scans until the simulator\'s refs run out: qr_timeout, no retry', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp({}, { reconnect: RECONNECT, qrTimeoutMs: QR_MS }, { qrRefs: { count: 1, firstMs: QR_MS, nextMs: QR_MS } });
  before(() => {
    ({ sim, t } = env);
  });

  it('one close event {408, qr_timeout, willReconnect false}, stopped, wantsConnection false, no new QR until a connect', { timeout: 60_000 }, async () => {
    sim.simulator.createAccount({ number: '5511987659821' });
    const created = await t.createInstance({ channel: 'whatsapp', name: 'qr-expiry' });
    const api = t.client(created.key);
    const { id } = (await api.call('getInstance')).instance as { id: string };
    const mine = () => t.events.filter((e) => (e as { instance?: string }).instance === id && (e.type === 'connection' || e.type === 'qrcode'));

    // Before the call: the code is shown after it starts, so its close comes at least QR_MS after this.
    const asked = Date.now();
    const connecting = await api.call('connectInstance');
    assert.match(connecting.qrcode, /^https:\/\/wa\.me\/settings\/linked_devices#2@/);
    assert.equal(sim.simulator.pendingClients().length, 1);
    // Baileys shows the single ref for its QR_MS, then ends the socket by itself.
    await t.waitFor(() => mine().some((e) => e.type === 'connection' && e.status === 'close'), 30_000, 'the QR code to expire');
    assert.ok(Date.now() - asked >= QR_MS, 'the code lived its qrTimeoutMs');
    const closedAt = mine().length;
    // Far longer than the whole reconnect policy: a retry would have opened a socket and shown a new QR code.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const events = mine();
    assert.equal(events.length, closedAt, 'nothing after the close');
    const shown = events.map((e) => e.type === 'connection' && e.status === 'close' ? [e.status, e.code, e.reason, e.willReconnect, e.loggedOut] : [e.type]);
    assert.deepEqual(shown, [['qrcode'], ['close', 408, 'qr_timeout', false, false]], 'one QR code (one ref), one close');
    assert.deepEqual(sim.simulator.pendingClients(), [], 'no client waits to be linked');

    const { instance } = await api.call('getInstance');
    assert.equal(instance.phoneConnected, false);
    assert.equal(instance.connection?.status, 'stopped');
    assert.deepEqual([instance.connection?.failure?.code, instance.connection?.failure?.reason], [408, 'qr_timeout']);
    assert.equal((await t.server.context.storage.instances.get(id))?.wantsConnection, false, 'a restarted server would not connect it again');

    const again = await api.call('connectInstance');
    assert.match(again.qrcode, /^https:\/\/wa\.me\/settings\/linked_devices#2@/);
    assert.notEqual(again.qrcode, connecting.qrcode, 'a new QR code');
    assert.equal((await t.server.context.storage.instances.get(id))?.wantsConnection, true);
  });
});
