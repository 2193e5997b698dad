import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('retry receipts: a message Baileys cannot decrypt is resent by the phone', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('Baileys lost its session with the phone: it asks for retries and decrypts the resend over a new session', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659301' });
    const friend = sim.simulator.createAccount({ number: '5511987659302' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const first = await sim.simulator.sendText(friend.number, me.number, 'primeira');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === first.id && m.message?.conversation), 'the first message');
    // The client loses its Signal session with the friend's phone (a restored backup, a wiped store).
    // (Baileys keeps it under the phone's LID once it learned the mapping, and resolves the PN address to it.)
    await client.sock!.signalRepository.deleteSession([friend.jid, friend.lid]);
    assert.equal((await client.sock!.signalRepository.validateSession(friend.jid)).exists, false);
    const second = await sim.simulator.sendText(friend.number, me.number, 'segunda, reenviada');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === second.id && m.message?.conversation === 'segunda, reenviada')
      || client.seen.messageUpdates.some((u) => u.key.id === second.id && u.update.message?.conversation === 'segunda, reenviada'), 'the resent message to decrypt', 20_000);
    const retries = sim.simulator.sent(friend.number).find((m) => m.id === second.id)!.retries!;
    assert.ok(retries.length >= 1);
    assert.equal(retries[0]!.from, `${me.number}:1@s.whatsapp.net`);
    assert.equal(sim.simulator.sent(friend.number).find((m) => m.id === first.id)!.retries, undefined);
    client.end();
  });
});
