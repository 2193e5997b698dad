import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('device-list changes reach peers that cached the list', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('a companion linked after a peer cached the account\'s devices gets the peer\'s next message', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659001' });
    const friend = sim.simulator.createAccount({ number: '5511987659002' });
    const laptop = new TestClient(sim.url);
    await laptop.link((qr) => sim.simulator.scanQr(me.number, qr));
    const peer = new TestClient(sim.url);
    await peer.link((qr) => sim.simulator.scanQr(friend.number, qr));
    const first = await peer.sock!.sendMessage(me.jid, { text: 'primeira' });
    await waitFor(() => laptop.seen.upserts.some((m) => m.key.id === first!.key.id), 'the first message on the laptop');
    const desktop = new TestClient(sim.url);
    await desktop.link((qr) => sim.simulator.scanQr(me.number, qr));
    const second = await peer.sock!.sendMessage(me.jid, { text: 'segunda' });
    await waitFor(() => desktop.seen.upserts.some((m) => m.key.id === second!.key.id), 'the second message on the new desktop');
    const got = desktop.seen.upserts.find((m) => m.key.id === second!.key.id)!.message;
    assert.equal(got?.conversation ?? got?.extendedTextMessage?.text, 'segunda');
    for (const client of [laptop, peer, desktop]) client.end();
  });

  it('answers who is on WhatsApp (usync contact) and each user\'s devices', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659011' });
    const friend = sim.simulator.createAccount({ number: '5511987659012' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const found = await client.sock!.onWhatsApp(friend.number, '5511987659099');
    assert.deepEqual(found, [{ jid: friend.jid, exists: true }]);
    const devices = await client.sock!.getUSyncDevices([friend.jid, me.jid], false, false);
    // Both phones (device 0); of my companions only this one, which is left out as the sender.
    assert.deepEqual(devices.map((d) => d.jid).sort(), [friend.jid, me.jid].sort());
    client.end();
  });
});
