import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browsers, getBinaryNodeChild } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('linking by pairing code with the unmodified Baileys client', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('requestPairingCode, the phone enters the code, the client is linked, restarts with 515 and opens', { timeout: 60_000 }, async () => {
    const account = sim.simulator.createAccount({ number: '5511987654001' });
    const client = new TestClient(sim.url, { browser: Browsers.windows('Chrome') });
    client.connect();
    await waitFor(() => client.seen.qrs.length > 0, 'the registration (pair-device)');
    const code = await client.sock!.requestPairingCode(account.number);
    await waitFor(() => sim.simulator.pendingClients().some((c) => c.pairingCodeFor === account.number), 'the companion_hello');
    const device = await sim.simulator.enterPairingCode(account.number, `${code.slice(0, 4)}-${code.slice(4)}`);
    assert.equal(device.jid, `${account.number}:1@s.whatsapp.net`);
    await waitFor(() => client.closed, 'the restart');
    assert.equal(client.seen.closeCode, 515);
    client.connect();
    await waitFor(() => client.opened, 'the login after the pairing-code link');
    client.end();
  });

  it('a wrong code links nothing', { timeout: 60_000 }, async () => {
    const account = sim.simulator.createAccount({ number: '5511987654002' });
    const client = new TestClient(sim.url, { browser: Browsers.windows('Chrome') });
    client.connect();
    await waitFor(() => client.seen.qrs.length > 0, 'the registration (pair-device)');
    const code = await client.sock!.requestPairingCode(account.number);
    await waitFor(() => sim.simulator.pendingClients().some((c) => c.pairingCodeFor === account.number), 'the companion_hello');
    const wrong = code.startsWith('A') ? `B${code.slice(1)}` : `A${code.slice(1)}`;
    await assert.rejects(sim.simulator.enterPairingCode(account.number, wrong), { code: 'wrong_code' });
    assert.deepEqual(sim.simulator.getAccount(account.number).devices, []);
    client.end();
  });

  it('refuses companion_hello from a display name that is no real browser and OS, as WhatsApp does: Chrome (Parley)', { timeout: 60_000 }, async () => {
    const account = sim.simulator.createAccount({ number: '5511987654003' });
    const client = new TestClient(sim.url, { browser: ['Parley', 'Chrome', '1.0'] });
    client.connect();
    await waitFor(() => client.seen.qrs.length > 0, 'the registration (pair-device)');
    const answers: BinaryNode[] = [];
    client.sock!.ws.on('CB:iq,type:error', (node: BinaryNode) => answers.push(node));
    // Baileys rc14 sends companion_hello without waiting for the answer, so it still returns a code.
    await client.sock!.requestPairingCode(account.number);
    await waitFor(() => answers.length > 0, 'the refusal');
    assert.deepEqual(getBinaryNodeChild(answers[0], 'error')?.attrs, { code: '400', text: 'bad-request' });
    assert.equal(sim.simulator.pendingClients().some((c) => c.pairingCodeFor === account.number), false);
    await assert.rejects(sim.simulator.enterPairingCode(account.number, 'ABCD-EFGH'), { code: 'no_pairing_request' });
    client.end();
  });
});
