import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('outages and forced closes as the unmodified Baileys client sees them', () => {
  let sim: RunningSimulator;
  let n = 0;
  const linked = async () => {
    const account = sim.simulator.createAccount({ number: `55119876530${String(++n).padStart(2, '0')}` });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(account.number, qr));
    return { account, client };
  };
  useSimulator((started) => { sim = started; });

  it('refuse: the live socket drops, reconnections fail while the port is closed, and the client is back after the outage', { timeout: 60_000 }, async () => {
    const { client } = await linked();
    client.keepReconnecting();
    try {
      await sim.simulator.startOutage('refuse');
      await waitFor(() => client.closes.length >= 3, 'the drop and two refused reconnections');
      assert.equal(client.closes[0], 428, 'the live socket was closed under it');
      assert.ok(client.closes.slice(1).every((code) => code === 408), `refused connections: ${client.closes.join(',')}`);
      assert.equal(client.opened, false);
      await sim.simulator.endOutage();
      await waitFor(() => client.opened, 'the reconnection after the outage');
    } finally {
      await sim.simulator.endOutage();
      client.end();
    }
  });

  it('blackhole: nothing answers, Baileys notices through its keep-alive (408), and reconnects after the outage', { timeout: 60_000 }, async () => {
    const { client } = await linked();
    client.keepReconnecting();
    try {
      await sim.simulator.startOutage('blackhole');
      await waitFor(() => client.closes.length >= 2, 'the lost connection and a reconnection that hangs', 30_000);
      assert.equal(client.closes[0], 408);
      assert.equal(client.closes[1], 408, 'the opening handshake timed out');
      assert.equal(client.opened, false);
      await sim.simulator.endOutage();
      await waitFor(() => client.opened, 'the reconnection after the outage', 20_000);
    } finally {
      await sim.simulator.endOutage();
      client.end();
    }
  });

  it('a timed outage ends by itself', { timeout: 30_000 }, async () => {
    const view = await sim.simulator.startOutage('refuse', 300);
    assert.equal(view.mode, 'refuse');
    assert.ok(view.endsAt);
    await waitFor(() => sim.simulator.outage().mode === 'none', 'the end of the outage');
  });

  for (const code of [403, 408, 411, 428, 440, 500, 503]) {
    it(`closes a client's socket with ${code} and Baileys reports ${code}`, { timeout: 30_000 }, async () => {
      const { client } = await linked();
      sim.simulator.closeClient(client.auth.creds.me!.id, code);
      await waitFor(() => client.closed, 'the close');
      assert.equal(client.seen.closeCode, code);
      // How Baileys read it (lib/Socket/socket.js): a <failure>, the <ib> downgrade, or a stream error.
      const message = code === 403 ? 'Connection Failure' : code === 411 ? 'Multi-device beta not joined' : code === 428 ? 'Connection Terminated' : /^Stream Errored/;
      if (typeof message === 'string') assert.equal(client.seen.closeMessage, message);
      else assert.match(client.seen.closeMessage ?? '', message);
    });
  }

  it('refuses an unknown close code and an unknown device without changing anything', async () => {
    const { client } = await linked();
    assert.throws(() => sim.simulator.closeClient(client.auth.creds.me!.id, 999), { code: 'invalid_code' });
    assert.throws(() => sim.simulator.closeClient(client.auth.creds.me!.id, 403.5), { code: 'invalid_code' });
    assert.throws(() => sim.simulator.closeClient('5511000000000:1@s.whatsapp.net', 428), { code: 'client_not_connected' });
    await assert.rejects(sim.simulator.startOutage('flood' as 'refuse'), { code: 'invalid_mode' });
    assert.equal(sim.simulator.outage().mode, 'none');
    assert.equal(client.closed, false);
    client.end();
  });
});
