import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Curve } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('QR linking and login with the unmodified Baileys client', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('shows a QR, links when the phone scans it, restarts with 515 and opens with the new credentials', { timeout: 60_000 }, async () => {
    const account = sim.simulator.createAccount({ number: '5511987650001', pushName: 'Ana' });
    const client = new TestClient(sim.url);
    client.connect();
    await waitFor(() => client.seen.qrs.length > 0, 'a QR code');
    const qr = client.seen.qrs[0]!;
    assert.match(qr, /^https:\/\/wa\.me\/settings\/linked_devices#2@/);
    const device = await sim.simulator.scanQr(account.number, qr);
    assert.equal(device.jid, `${account.number}:1@s.whatsapp.net`);
    await waitFor(() => client.closed, 'the restart');
    assert.equal(client.seen.closeCode, 515);
    assert.equal(client.auth.creds.me?.id, device.jid);
    assert.equal(client.auth.creds.me?.lid, device.lid);
    assert.ok(client.auth.creds.account?.deviceSignature?.length, 'the client signed its device identity');
    client.connect();
    await waitFor(() => client.opened, 'the connection to open');
    const view = sim.simulator.getAccount(account.number);
    assert.equal(view.devices.length, 1);
    assert.equal(view.devices[0]!.online, true);
    client.end();
  });

  it('refuses a client whose device signature does not verify (Baileys\' own Curve.verify would accept it)', { timeout: 60_000 }, async () => {
    const account = sim.simulator.createAccount({ number: '5511987650002' });
    const client = new TestClient(sim.url);
    client.connect();
    await waitFor(() => client.seen.qrs.length > 0, 'a QR code');
    // Same public identity the server knows, another private key: the device signature cannot verify.
    const { public: identity } = client.auth.creds.signedIdentityKey;
    Object.assign(client.auth.creds, { signedIdentityKey: { public: identity, private: Curve.generateKeyPair().private } });
    await assert.rejects(sim.simulator.scanQr(account.number, client.seen.qrs[0]!), { code: 'bad_device_signature' });
    assert.deepEqual(sim.simulator.getAccount(account.number).devices, []);
    await waitFor(() => client.closed, 'the close');
    assert.notEqual(client.seen.closeCode, 515);
  });
});
