import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { proto, WA_CERT_DETAILS } from '@whiskeysockets/baileys';
import { startSimulator, trustSimulatorRoot } from '../src/index.js';
import { signatureValid } from '../src/transport/signatures.js';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor } from './client.js';

/** WhatsApp's real root key, as Baileys pins it before any test trusts the simulator's. */
const WHATSAPP_ROOT = Buffer.from(WA_CERT_DETAILS.PUBLIC_KEY);

describe('sessions of the unmodified Baileys client', () => {
  let sim: RunningSimulator;
  let untrust: () => void;
  let n = 0;
  const newAccount = () => sim.simulator.createAccount({ number: `55119876510${String(++n).padStart(2, '0')}` });
  const linked = async () => {
    const account = newAccount();
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(account.number, qr));
    return { account, client };
  };
  before(async () => {
    sim = await startSimulator();
    untrust = trustSimulatorRoot(sim.rootPublicKey);
  });
  after(async () => {
    untrust();
    await sim.stop();
  });

  it('reconnects with saved credentials straight to open, without a QR', { timeout: 30_000 }, async () => {
    const { client } = await linked();
    client.end();
    await waitFor(() => client.closed, 'the close');
    client.connect();
    await waitFor(() => client.opened, 'the reconnection to open');
    assert.deepEqual(client.seen.qrs, []);
    client.end();
  });

  it('rotates the QR refs and Baileys ends with 408 "QR refs attempts ended" when none is scanned', { timeout: 30_000 }, async () => {
    const client = new TestClient(sim.url, { qrTimeout: 150 });
    client.connect();
    await waitFor(() => client.closed, 'the QR attempts to end');
    assert.equal(client.seen.closeCode, 408);
    assert.equal(client.seen.closeMessage, 'QR refs attempts ended');
    assert.equal(client.seen.qrs.length, 6, 'one QR per ref the server sent');
    assert.equal(new Set(client.seen.qrs.map((qr) => qr.split(',')[0])).size, 6);
  });

  it('refuses a scan of a ref that is not shown anymore', { timeout: 30_000 }, async () => {
    const account = newAccount();
    await assert.rejects(sim.simulator.scanQr(account.number, '2@unknown,AAAA,BBBB,CCCC'), { code: 'qr_expired' });
    assert.equal(sim.simulator.getAccount(account.number).devices.length, 0);
  });

  it('a second socket with the same credentials replaces the first: 440 conflict', { timeout: 30_000 }, async () => {
    const { client } = await linked();
    const second = new TestClient(sim.url);
    Object.assign(second.auth, { creds: client.auth.creds, keys: client.auth.keys });
    second.connect();
    await waitFor(() => second.opened, 'the second socket to open');
    await waitFor(() => client.closed, 'the first socket to close');
    assert.equal(client.seen.closeCode, 440);
    second.end();
  });

  it('the phone removing the device logs the client out: 401, and it cannot log in again', { timeout: 30_000 }, async () => {
    const { account, client } = await linked();
    sim.simulator.removeDevice(account.number, 1);
    await waitFor(() => client.closed, 'the logout');
    assert.equal(client.seen.closeCode, 401);
    assert.deepEqual(sim.simulator.getAccount(account.number).devices, []);
    client.connect();
    await waitFor(() => client.closed, 'the refused login');
    assert.equal(client.seen.closeCode, 401);
    assert.equal(client.opened, false);
  });

  it('the client logging itself out removes the device', { timeout: 30_000 }, async () => {
    const { account, client } = await linked();
    await client.sock!.logout();
    await waitFor(() => sim.simulator.getAccount(account.number).devices.length === 0, 'the removal');
    await waitFor(() => client.closed, 'the close');
    assert.equal(client.seen.closeCode, 401);
  });

  it('certifies its key under its own root only; Baileys rc14 does not check the chain (pinned: this fails once it does)', { timeout: 30_000 }, async () => {
    const { intermediate, leaf } = proto.CertChain.decode(sim.simulator.identity.certificateChain);
    const details = proto.CertChain.NoiseCertificate.Details.decode(intermediate!.details!);
    assert.equal(signatureValid(sim.rootPublicKey, intermediate!.details!, intermediate!.signature), true);
    assert.equal(signatureValid(WHATSAPP_ROOT, intermediate!.details!, intermediate!.signature), false, 'not a chain under WhatsApp\'s root');
    assert.equal(signatureValid(details.key!, leaf!.details!, leaf!.signature), true);
    const leafKey = proto.CertChain.NoiseCertificate.Details.decode(leaf!.details!).key!;
    assert.deepEqual(Buffer.from(leafKey), Buffer.from(sim.simulator.identity.staticKey.public));
    // Baileys 7.0.0-rc14's Curve.verify returns true for any 64-byte signature (see src/transport/signatures.ts),
    // so a client that never called trustSimulatorRoot gets through the handshake to its QR.
    untrust();
    try {
      const client = new TestClient(sim.url);
      client.connect();
      await waitFor(() => client.seen.qrs.length > 0 || client.closed, 'the handshake outcome');
      assert.equal(client.seen.closeMessage, undefined, 'Baileys now refuses an untrusted chain: expect the certificate error here');
      client.end();
    } finally {
      untrust = trustSimulatorRoot(sim.rootPublicKey);
    }
  });
});
