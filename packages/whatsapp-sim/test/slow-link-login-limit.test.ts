import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { SimError } from '../src/network/errors.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('a slow link and the login limit, as the unmodified Baileys client sees them', () => {
  let sim: RunningSimulator;
  let n = 0;
  const linked = async () => {
    const account = sim.simulator.createAccount({ number: `55119876531${String(++n).padStart(2, '0')}` });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(account.number, qr));
    return { account, client };
  };
  useSimulator((started) => { sim = started; });

  it('slow: every frame arrives late, in order; the session stays up and messages still flow both ways', { timeout: 60_000 }, async () => {
    const { account, client } = await linked();
    const friend = sim.simulator.createAccount({ number: '5511987653190' });
    try {
      assert.deepEqual(await sim.simulator.startOutage('slow', undefined, 400), { mode: 'slow', endsAt: undefined, latencyMs: 400 });
      const started = Date.now();
      const sent = await client.sock!.sendMessage(friend.jid, { text: 'devagar' });
      await waitFor(() => sim.simulator.received(friend.number).some((m) => m.id === sent!.key.id), 'the slow message');
      assert.ok(Date.now() - started >= 400, 'it waited for the link');
      const reply = await sim.simulator.sendText(friend.number, account.number, 'também devagar');
      await waitFor(() => client.seen.upserts.some((m) => m.key.id === reply.id), 'the slow reply');
      assert.equal(client.closed, false);
    } finally {
      await sim.simulator.endOutage();
    }
    assert.deepEqual(sim.simulator.outage(), { mode: 'none', endsAt: undefined });
    for (const bad of [undefined, 0, 60_001]) await assert.rejects(sim.simulator.startOutage('slow', undefined, bad), { code: 'invalid_latency' });
    await assert.rejects(sim.simulator.startOutage('refuse', undefined, 100), { code: 'invalid_latency' });
    assert.equal(sim.simulator.outage().mode, 'none');
    client.end();
  });

  it('login limit: a login over it ends with stream error 429 (Baileys 429); once the window passed, the login opens', { timeout: 60_000 }, async () => {
    const { client } = await linked();
    try {
      assert.deepEqual(sim.simulator.setLoginLimit({ max: 1, windowMs: 1500 }), { max: 1, windowMs: 1500, throttled: 0 });
      client.connect();
      await waitFor(() => client.opened, 'the one login the limit allows');
      client.connect();
      await waitFor(() => client.closed, 'the throttled login');
      assert.equal(client.seen.closeCode, 429, client.seen.closeMessage);
      assert.equal(sim.simulator.loginLimitView()?.throttled, 1);
      await new Promise((resolve) => setTimeout(resolve, 1600));
      client.connect();
      await waitFor(() => client.opened, 'the login after the window');
    } finally {
      sim.simulator.setLoginLimit(undefined);
      client.end();
    }
    assert.throws(() => sim.simulator.setLoginLimit({ max: 0, windowMs: 10 }), (e: SimError) => e.status === 400 && e.code === 'invalid_login_limit');
    const res = await fetch(`${sim.controlUrl}/login-limit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ limit: { max: 'x' } }) });
    assert.equal(res.status, 400);
    const off = await fetch(`${sim.controlUrl}/login-limit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ limit: null }) });
    assert.deepEqual(await off.json(), { limit: null });
  });
});
