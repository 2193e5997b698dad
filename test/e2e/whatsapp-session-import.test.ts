import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import makeWASocket, { DisconnectReason, useMultiFileAuthState, type WASocket } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

const SILENT = { level: 'silent', child: () => SILENT, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

/**
 * Links a session as Evolution API or WAHA (NOWEB) would have: a plain Baileys client with
 * `useMultiFileAuthState(dir)`, linked by QR on the simulator (the 515 restart, then open), then ended.
 * Answers the directory's files: creds.json parsed, and every other file by name.
 */
async function linkWithFiles(sim: RunningSimulator, number: string, dir: string): Promise<{ creds: unknown; keys: Record<string, unknown> }> {
  const { state, saveCreds } = await useMultiFileAuthState(dir);
  const open = (): Promise<WASocket> => new Promise((resolve, reject) => {
    const sock = makeWASocket({ waWebSocketUrl: sim.url, auth: state, logger: SILENT as never, connectTimeoutMs: 5_000 });
    sock.ev.on('creds.update', saveCreds);
    sock.ev.on('connection.update', ({ qr, connection, lastDisconnect }) => {
      if (qr) sim.simulator.scanQr(number, qr).catch(reject);
      if (connection === 'open') resolve(sock);
      if (connection === 'close') {
        const code = (lastDisconnect?.error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode;
        if (code === DisconnectReason.restartRequired) open().then(resolve, reject);
        else reject(new Error(`the plain client closed with ${code}`));
      }
    });
  });
  const sock = await open();
  // Its first login uploads prekeys and takes the app-state keys; let the files settle, then stop it.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await saveCreds();
  sock.end(undefined);
  const keys: Record<string, unknown> = {};
  for (const name of await readdir(dir)) {
    if (name !== 'creds.json') keys[name] = JSON.parse(await readFile(join(dir, name), 'utf8'));
  }
  return { creds: JSON.parse(await readFile(join(dir, 'creds.json'), 'utf8')), keys };
}

/**
 * Session import (issue 25, users moving from Evolution API or WAHA): `POST /whatsapp/instances/{key}/session`
 * with a useMultiFileAuthState directory; the instance's next connect logs in without a QR code, and sends work.
 */
describe('importing a linked Baileys session (useMultiFileAuthState files) into a WhatsApp instance', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });
  const shop = '5511987659901';
  const friend = '5511987659902';

  it('the imported session logs in without a QR code, as the same device, and sends; imported again elsewhere, it replaces the first (440)', { timeout: 90_000 }, async () => {
    sim.simulator.createAccount({ number: shop, pushName: 'Loja' });
    sim.simulator.createAccount({ number: friend, pushName: 'Cliente' });
    const dir = await mkdtemp(join(tmpdir(), 'parley-import-'));
    try {
      const files = await linkWithFiles(sim, shop, dir);
      assert.ok(Object.keys(files.keys).some((name) => name.startsWith('pre-key-')), 'the directory holds the prekeys');
      const device = sim.simulator.getAccount(shop).devices[0]!;
      const instance = await t.createInstance({ channel: 'whatsapp', name: 'imported' });
      const stray = await t.admin('POST', `/whatsapp/instances/${instance.key}/session`, { ...files, keys: { ...files.keys, 'notes.txt': {} } });
      assert.equal(stray.status, 400);
      assert.match(stray.body.error.message, /^body\.keys\["notes\.txt"\] is not a key file of useMultiFileAuthState/);
      const imported = await t.admin('POST', `/whatsapp/instances/${instance.key}/session`, files);
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      assert.deepEqual(imported.body.data, { instance: instance.id, device: device.jid, keys: Object.keys(files.keys).length });

      const api = t.client(instance.key);
      const connecting = await api.call('connectInstance');
      assert.equal(connecting.qrcode ?? '', '', 'no QR code');
      const open = await t.waitFor(async () => {
        const { instance: current } = await api.call('getInstance');
        return current.phoneConnected ? current : undefined;
      }, 20_000, 'the imported session to log in');
      assert.equal(open.user?.id, `${shop}@s.whatsapp.net`);
      assert.equal(sim.simulator.getAccount(shop).devices.length, 1, 'the same linked device, no new one');
      assert.equal(sim.simulator.getAccount(shop).devices[0]!.online, true);

      const sent = await api.call('sendText', { body: { to: friend, text: 'sessão importada' } });
      const got = await t.waitFor(() => sim.simulator.received(friend).find((m) => m.id === sent.data.key.id), 20_000, 'the phone to get the send');
      assert.equal(got.text, 'sessão importada');
      const reply = await sim.simulator.sendText(friend, shop, 'recebido');
      await t.waitFor(async () => (await api.call('listChatMessages', { params: { jid: `${friend}@s.whatsapp.net` } })).data.some((m) => m.key.id === reply.id), 20_000, 'the reply to be stored');

      // A running connection is not replaced.
      const busy = await t.admin('POST', `/whatsapp/instances/${instance.key}/session`, files);
      assert.deepEqual([busy.status, busy.body.error?.code], [409, 'connection_active']);

      // The same session imported into a second instance: its login replaces the first socket on the server
      // (stream error conflict, Baileys 440), and the first instance stops for good with one close event.
      const twin = await t.createInstance({ channel: 'whatsapp', name: 'imported-twin' });
      assert.equal((await t.admin('POST', `/whatsapp/instances/${twin.key}/session`, files)).status, 200);
      const closes = () => t.events.filter((e) => e.type === 'connection' && e.status === 'close' && (e as { instance?: string }).instance === instance.id);
      await t.client(twin.key).call('connectInstance');
      await t.waitFor(async () => (await t.client(twin.key).call('getInstance')).instance.phoneConnected, 20_000, 'the twin to log in');
      const [replaced] = await t.waitFor(() => (closes().length > 0 ? closes() : undefined), 20_000, 'the first instance\'s close');
      assert.ok(replaced?.type === 'connection' && replaced.status === 'close');
      assert.deepEqual([replaced.code, replaced.reason, replaced.willReconnect, replaced.loggedOut], [440, 'connectionReplaced', false, false]);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      assert.equal(closes().length, 1, 'one close: no reconnection that would kick the twin out');
      assert.equal((await api.call('getInstance')).instance.connection?.status, 'stopped');
      assert.equal((await t.client(twin.key).call('getInstance')).instance.phoneConnected, true, 'the twin stays connected');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('bad input: 400 naming the field, 401 without the admin token, 404 unknown key; nothing changed', { timeout: 30_000 }, async () => {
    const instance = await t.createInstance({ channel: 'whatsapp', name: 'refusals' });
    const path = `/whatsapp/instances/${instance.key}/session`;
    const creds = { noiseKey: { private: { type: 'Buffer', data: 'AAAA' }, public: { type: 'Buffer', data: 'AAAA' } } };
    const cases: Array<[unknown, string]> = [
      [{}, 'body.creds is required'],
      [{ creds }, 'body.creds.noiseKey.private must be 32 bytes'],
      [{ creds: {}, keys: {} }, 'body.creds.noiseKey must be a key pair'],
      [{ creds: {}, extra: 1 }, 'body.extra is not allowed'],
    ];
    for (const [body, message] of cases) {
      const answer = await t.admin('POST', path, body);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.ok(String(answer.body.error.message).includes(message), `${answer.body.error.message} ⊇ ${message}`);
    }
    assert.equal((await t.request('POST', path, { creds: {} })).status, 401);
    assert.equal((await t.admin('POST', '/whatsapp/instances/nope/session', { creds: {} })).status, 404);
    // Nothing was stored: the instance still shows a QR code to link.
    const connecting = await t.client(instance.key).call('connectInstance');
    assert.match(connecting.qrcode, /^https:\/\/wa\.me\/settings\/linked_devices#/);
  });
});
