import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, trustSimulatorRoot } from '../src/index.js';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor } from './client.js';

describe('first login: initial history and app state', () => {
  let sim: RunningSimulator;
  let untrust: () => void;
  before(async () => {
    sim = await startSimulator();
    untrust = trustSimulatorRoot(sim.rootPublicKey);
  });
  after(async () => {
    untrust();
    await sim.stop();
  });

  it('a Baileys client gets the phone\'s bootstrap and an empty app state, and goes online', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659101', pushName: 'Maria' });
    const friend = sim.simulator.createAccount({ number: '5511987659102' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    // Baileys counts a completed initial sync (history processed, app state synced) here; its 20 s
    // fallback for a missing history does not.
    await waitFor(() => client.auth.creds.accountSyncCounter === 1, 'the initial sync to complete', 15_000);
    assert.equal(client.auth.creds.processedHistoryMessages.length, 1);
    const sent = await sim.simulator.sendText(friend.number, me.number, 'depois da sincronização');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === sent.id), 'the message');
    client.end();
  });
});
