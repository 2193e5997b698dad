import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('prekeys running low', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('a companion left with fewer than five one-time prekeys is told so once, uploads more, and a new contact\'s session starts on one', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987652401' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const device = sim.simulator.getAccount(me.number).devices[0]!.id;
    const first = sim.simulator.preKeyCount(me.number, device);
    assert.equal(first, 812, 'Baileys\' first upload');
    const uploads = () => sim.simulator.stanzas(me.number, 'iq').filter((s) => JSON.stringify(s.stanza).includes('"list"') && JSON.stringify(s.stanza).includes('encrypt')).length;
    const before = uploads();
    assert.equal(sim.simulator.drainPreKeys(me.number, device, first - 2), 2);
    await waitFor(() => sim.simulator.preKeyCount(me.number, device) > 2, 'the top-up upload');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(uploads() - before, 1, 'one upload for one shortage');
    const topped = sim.simulator.preKeyCount(me.number, device);
    assert.ok(topped >= 5, `${topped} after the top-up`);

    sim.simulator.drainPreKeys(me.number, device, topped);
    const friend = sim.simulator.createAccount({ number: '5511987652402' });
    await waitFor(() => sim.simulator.preKeyCount(me.number, device) > 0, 'a second top-up');
    const sent = await sim.simulator.sendText(friend.number, me.number, 'primeira mensagem');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === sent.id), 'the message');
    assert.equal(client.seen.upserts.find((m) => m.key.id === sent.id)!.message?.conversation, 'primeira mensagem');
    assert.throws(() => sim.simulator.drainPreKeys(me.number, device, 0), /count must be an integer/);
    client.end();
  });
});
