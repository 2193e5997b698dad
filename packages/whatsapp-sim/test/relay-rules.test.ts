import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

/** A `<message>` as a client relays it, with one `<enc>` per addressed device (the ciphertext is made up). */
function stanza(id: string, to: string, devices: string[], attrs: Record<string, string> = {}): BinaryNode {
  const enc = (jid: string): BinaryNode => ({ tag: 'to', attrs: { jid }, content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: Buffer.from('not a signal message') }] });
  return { tag: 'message', attrs: { id, to, type: 'text', ...attrs }, content: [{ tag: 'participants', attrs: {}, content: devices.map(enc) }] };
}

describe('what the server relays of a client\'s <message>', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('relays copies only to the destination\'s and the sender\'s own devices, never to a third account', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987658001' });
    const friend = sim.simulator.createAccount({ number: '5511987658002' });
    const stranger = sim.simulator.createAccount({ number: '5511987658003' });
    const sender = new TestClient(sim.url);
    await sender.link((qr) => sim.simulator.scanQr(me.number, qr));
    const bystander = new TestClient(sim.url);
    await bystander.link((qr) => sim.simulator.scanQr(stranger.number, qr));
    const acks: BinaryNode[] = [];
    sender.sock!.ws.on('CB:ack,class:message', (node: BinaryNode) => acks.push(node));
    await sender.sock!.sendNode(stanza('3EB0AAAA0001', friend.jid, [`${stranger.number}:1@s.whatsapp.net`, friend.jid]));
    await waitFor(() => acks.length > 0 && sim.simulator.undecryptable(friend.number).length > 0, 'the ack and the friend\'s copy');
    // The bystander's Baileys would have reported a copy it could not decrypt; give a stray copy time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(bystander.seen.upserts.some((m) => m.key.id === '3EB0AAAA0001'), false);
    sender.end();
    bystander.end();
  });

  it('refuses peer traffic addressed to another account, and records copies a phone cannot decrypt', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987658011' });
    const friend = sim.simulator.createAccount({ number: '5511987658012' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const peer: BinaryNode = { tag: 'message', attrs: { id: '3EB0AAAA0002', to: friend.jid, type: 'text', category: 'peer' },
      content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: Buffer.from('not a signal message') }] };
    await client.sock!.sendNode(peer);
    await client.sock!.sendNode(stanza('3EB0AAAA0003', friend.jid, [friend.jid]));
    await waitFor(() => sim.simulator.undecryptable(friend.number).some((m) => m.id === '3EB0AAAA0003'), 'the undecryptable copy');
    const failed = sim.simulator.undecryptable(friend.number);
    assert.deepEqual(failed.map((m) => [m.id, m.from, m.type]), [['3EB0AAAA0003', `${me.number}:1@s.whatsapp.net`, 'msg']]);
    assert.deepEqual(sim.simulator.received(friend.number), []);
    client.end();
  });

  it('a text addressed to the LID (lid@lid) reaches the phone like one to the number', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987658021' });
    const friend = sim.simulator.createAccount({ number: '5511987658022' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const sent = await client.sock!.sendMessage(friend.lid, { text: 'pelo LID' });
    await waitFor(() => sim.simulator.received(friend.number).some((m) => m.id === sent!.key.id), 'the phone to receive');
    assert.equal(sim.simulator.received(friend.number)[0]!.text, 'pelo LID');
    const answer = await sim.simulator.sendText(friend.number, me.number, 'resposta');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === answer.id), 'the answer');
    client.end();
  });
});
