import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { controlApi, refusal, TestClient, waitFor, useSimulator } from './client.js';

/** The text of a message Baileys decoded (a text is sent as an `extendedTextMessage`). */
const textOf = (message: proto.IMessage | null | undefined): string | undefined => message?.conversation ?? message?.extendedTextMessage?.text ?? undefined;

/**
 * Retry receipts between companions of two accounts: a client's copy that another account's companion cannot
 * decrypt is asked for again (`<receipt type="retry">`, relayed by the server to the sending device), and the
 * sender's Baileys resends it to that device alone, which decrypts it: one message, one delivery.
 */
describe('retry receipts between companions', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });
  const call = controlApi(() => sim);

  it('a garbled copy is retried by the receiving companion, resent by the sender, and delivered once', { timeout: 60_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659311', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659312', pushName: 'Cliente' });
    // Baileys resends what its `getMessage` answers (its recent-message cache is keyed by the chat, while the
    // retry receipt comes from the asking device), as an app answers from its store.
    const store = new Map<string, proto.IMessage>();
    const sender = new TestClient(sim.url, { getMessage: async (key) => store.get(key.id ?? '') });
    const receiver = new TestClient(sim.url);
    const send = async (text: string) => {
      const sent = (await sender.sock!.sendMessage(friend.jid, { text }))!;
      store.set(sent.key.id!, sent.message!);
      return sent;
    };
    await sender.link((qr) => sim.simulator.scanQr(shop.number, qr));
    await receiver.link((qr) => sim.simulator.scanQr(friend.number, qr));
    const first = await send('primeira');
    await waitFor(() => receiver.seen.upserts.some((m) => m.key.id === first.key.id && textOf(m.message) === 'primeira'), 'the first text');

    assert.deepEqual(sim.simulator.garbleIncoming(friend.number), { number: friend.number, messages: 1 });
    const second = await send('segunda, reenviada');
    const id = second.key.id!;
    const decrypted = () => [...receiver.seen.upserts.filter((m) => m.key.id === id).map((m) => m.message),
      ...receiver.seen.messageUpdates.filter((u) => u.key.id === id).map((u) => u.update.message)].filter((m) => textOf(m));
    await waitFor(() => decrypted().length > 0, 'the resend to decrypt', 20_000);
    assert.equal(textOf(decrypted()[0]), 'segunda, reenviada');
    // The receiver's first copy did not decrypt (a CIPHERTEXT stub), and it asked the sending device for a retry.
    assert.ok(receiver.seen.upserts.some((m) => m.key.id === id && m.messageStubType === proto.WebMessageInfo.StubType.CIPHERTEXT));
    const retries = sim.simulator.stanzas(friend.number, 'receipt').filter((s) => s.stanza.attrs.id === id && s.stanza.attrs.type === 'retry');
    assert.equal(retries.length, 1, 'one retry receipt');
    assert.equal(retries[0]!.stanza.attrs.to, `${shop.number}:1@s.whatsapp.net`);
    const resends = sim.simulator.stanzas(shop.number, 'message').filter((s) => s.stanza.attrs.id === id);
    assert.equal(resends.length, 2, 'the message and its resend');
    assert.equal(resends[1]!.stanza.attrs.to, `${friend.number}:1@s.whatsapp.net`, 'the resend goes to the asking device alone');
    await waitFor(() => sender.statusOf(id) >= proto.WebMessageInfo.Status.DELIVERY_ACK, 'the delivery receipt');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(decrypted().length, 1, 'decrypted once');
    // A delivery receipt (`inactive`: the client is not marked online) once, after the resend decrypted.
    const deliveries = sim.simulator.stanzas(friend.number, 'receipt').filter((s) => s.stanza.attrs.id === id && s.stanza.attrs.type !== 'retry');
    assert.deepEqual(deliveries.map((s) => s.stanza.attrs.type ?? ''), ['inactive']);
    assert.equal(deliveries.length, 1, 'delivered once');
    // The phone of the friend got a good copy.
    assert.equal(sim.simulator.received(friend.number).filter((m) => m.id === id && m.text === 'segunda, reenviada').length, 1);
    // Garbling was for one message: the next decrypts at once.
    const third = await send('terceira');
    await waitFor(() => receiver.seen.upserts.some((m) => m.key.id === third.key.id && textOf(m.message) === 'terceira'), 'the third text');
    assert.equal(sim.simulator.stanzas(friend.number, 'receipt').filter((s) => s.stanza.attrs.id === third.key.id && s.stanza.attrs.type === 'retry').length, 0);
    sender.end();
    receiver.end();
  });

  it('in a group: a garbled skmsg is retried by the member\'s companion, resent to it alone by the author\'s, and decrypted once', { timeout: 60_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659341', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659342', pushName: 'Cliente' });
    const store = new Map<string, proto.IMessage>();
    const sender = new TestClient(sim.url, { getMessage: async (key) => store.get(key.id ?? '') });
    const receiver = new TestClient(sim.url);
    await sender.link((qr) => sim.simulator.scanQr(shop.number, qr));
    await receiver.link((qr) => sim.simulator.scanQr(friend.number, qr));
    const group = await sender.sock!.groupCreate('Pedidos', [friend.jid]);
    const send = async (text: string) => {
      const sent = (await sender.sock!.sendMessage(group.id, { text }))!;
      store.set(sent.key.id!, sent.message!);
      return sent.key.id!;
    };
    const texts = (id: string) => [...receiver.seen.upserts.filter((m) => m.key.id === id).map((m) => m.message),
      ...receiver.seen.messageUpdates.filter((u) => u.key.id === id).map((u) => u.update.message)].map(textOf).filter(Boolean);
    const first = await send('primeira');
    await waitFor(() => texts(first).length > 0, 'the first group text');

    sim.simulator.garbleIncoming(friend.number);
    const id = await send('segunda, reenviada');
    await waitFor(() => texts(id).length > 0, 'the resend to decrypt', 20_000);
    assert.deepEqual(texts(id), ['segunda, reenviada']);
    assert.ok(receiver.seen.upserts.some((m) => m.key.id === id && m.messageStubType === proto.WebMessageInfo.StubType.CIPHERTEXT));
    const retries = sim.simulator.stanzas(friend.number, 'receipt').filter((s) => s.stanza.attrs.id === id && s.stanza.attrs.type === 'retry');
    assert.deepEqual(retries.map((s) => [s.stanza.attrs.to, s.stanza.attrs.participant]), [[group.id, `${shop.number}:1@s.whatsapp.net`]]);
    const relays = sim.simulator.stanzas(shop.number, 'message').filter((s) => s.stanza.attrs.id === id);
    assert.deepEqual(relays.map((s) => s.stanza.attrs.participant), [undefined, `${friend.number}:1@s.whatsapp.net`], 'the message, then its resend to the asking device');
    // The friend's phone decrypted its own copy at once, and keeps it once.
    assert.equal(sim.simulator.received(friend.number).filter((m) => m.id === id).length, 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.deepEqual(texts(id), ['segunda, reenviada'], 'decrypted once');
    sender.end();
    receiver.end();
  });

  it('a retry receipt for a message the server did not relay to the asking device reaches nobody', { timeout: 60_000 }, async () => {
    const a = sim.simulator.createAccount({ number: '5511987659321' });
    const b = sim.simulator.createAccount({ number: '5511987659322' });
    const [ca, cb] = [new TestClient(sim.url), new TestClient(sim.url)];
    await ca.link((qr) => sim.simulator.scanQr(a.number, qr));
    await cb.link((qr) => sim.simulator.scanQr(b.number, qr));
    const received: string[] = [];
    ca.sock!.ws.on('CB:receipt', (node: { attrs: Record<string, string> }) => received.push(`${node.attrs.type}:${node.attrs.id}`));
    await cb.sock!.sendNode({ tag: 'receipt', attrs: { id: '3EB0FORGED', type: 'retry', to: `${a.number}:1@s.whatsapp.net` },
      content: [{ tag: 'retry', attrs: { count: '1', id: '3EB0FORGED', t: '1', v: '1' } }] });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.deepEqual(received, []);
    ca.end();
    cb.end();
  });

  it('garble over HTTP: a count from 1 to 100, refused otherwise', async () => {
    sim.simulator.createAccount({ number: '5511987659331' });
    assert.deepEqual((await call('POST', '/accounts/5511987659331/garble', {})).body, { number: '5511987659331', messages: 1 });
    assert.deepEqual((await call('POST', '/accounts/5511987659331/garble', { messages: 3 })).body, { number: '5511987659331', messages: 3 });
    for (const messages of [0, 101, 1.5, 'x']) {
      const res = await call('POST', '/accounts/5511987659331/garble', { messages });
      assert.equal(res.status, 400);
      assert.match(refusal(res), /^validation_failed.* body\.messages$/);
    }
    assert.equal((await call('POST', '/accounts/5511980000000/garble', {})).status, 404);
  });
});
