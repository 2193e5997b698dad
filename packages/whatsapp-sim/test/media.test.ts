import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { downloadMediaMessage } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('media over the simulator\'s HTTPS host, with WhatsApp\'s media encryption', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; }, { media: true });

  it('Baileys uploads an image, a document and an audio: the phone downloads and decrypts each', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987654101' });
    const friend = sim.simulator.createAccount({ number: '5511987654102' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const image = randomBytes(3000);
    const document = Buffer.from('%PDF-1.4 pedido 123\n'.repeat(50));
    const audio = randomBytes(2048);
    const sent = [
      await client.sock!.sendMessage(friend.jid, { image, caption: 'a foto', mimetype: 'image/jpeg', jpegThumbnail: '' }),
      await client.sock!.sendMessage(friend.jid, { document, mimetype: 'application/pdf', fileName: 'pedido.pdf' }),
      await client.sock!.sendMessage(friend.jid, { audio, mimetype: 'audio/ogg; codecs=opus', seconds: 3 }),
    ];
    await waitFor(() => sent.every((m) => sim.simulator.received(friend.number).some((r) => r.id === m!.key.id)), 'the phone to receive all three');
    const got = (i: number) => sim.simulator.received(friend.number).find((r) => r.id === sent[i]!.key.id)!;
    assert.deepEqual(got(0).media, { kind: 'image', mimetype: 'image/jpeg', fileName: undefined, size: image.length });
    assert.equal(got(0).text, 'a foto');
    assert.deepEqual(got(1).media, { kind: 'document', mimetype: 'application/pdf', fileName: 'pedido.pdf', size: document.length });
    assert.equal(got(2).media?.kind, 'audio');
    assert.deepEqual(sim.simulator.receivedMedia(friend.number, sent[0]!.key.id!).data, image);
    assert.deepEqual(sim.simulator.receivedMedia(friend.number, sent[1]!.key.id!).data, document);
    assert.deepEqual(sim.simulator.receivedMedia(friend.number, sent[2]!.key.id!).data, audio);
    client.end();
  });

  it('a phone sends an image and a document: Baileys downloads and decrypts them from the host', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987654111' });
    const friend = sim.simulator.createAccount({ number: '5511987654112' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const image = randomBytes(5000);
    const photo = await sim.simulator.sendMedia(friend.number, me.number, { kind: 'image', data: image, mimetype: 'image/jpeg', caption: 'olha' });
    const pdf = Buffer.from('%PDF-1.4 nota fiscal');
    const doc = await sim.simulator.sendMedia(friend.number, me.number, { kind: 'document', data: pdf, mimetype: 'application/pdf', fileName: 'nota.pdf' });
    await waitFor(() => [photo, doc].every((s) => client.seen.upserts.some((m) => m.key.id === s.id && m.message)), 'both upserts');
    const photoMessage = client.seen.upserts.find((m) => m.key.id === photo.id)!;
    assert.equal(photoMessage.message?.imageMessage?.caption, 'olha');
    assert.ok(photoMessage.message?.imageMessage?.url?.startsWith(`https://127.0.0.1:`));
    assert.deepEqual(await downloadMediaMessage(photoMessage, 'buffer', {}), image);
    const docMessage = client.seen.upserts.find((m) => m.key.id === doc.id)!;
    assert.equal(docMessage.message?.documentMessage?.fileName, 'nota.pdf');
    assert.deepEqual(await downloadMediaMessage(docMessage, 'buffer', {}), pdf);
    await assert.rejects(sim.simulator.sendMedia(friend.number, me.number, { kind: 'image', data: Buffer.alloc(0), mimetype: 'image/jpeg' }), /data must be/);
    client.end();
  });

  it('the host refuses a wrong auth token and a body that does not match its hash, and answers 404 for unknown files', async () => {
    const conn = await fetch(`${sim.controlUrl}/`).then((r) => r.json()) as { mediaHost: string };
    const body = randomBytes(100);
    const token = (await import('node:crypto')).createHash('sha256').update(body).digest('base64url');
    const post = (auth: string, t: string) => fetch(`https://${conn.mediaHost}/mms/image/${t}?auth=${auth}&token=${t}`, { method: 'POST', body });
    assert.equal((await post('wrong', token)).status, 401);
    const auth = sim.simulator.mediaAuth;
    assert.equal((await post(auth, token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')))).status, 400);
    const ok = await post(auth, token);
    assert.equal(ok.status, 200);
    const { direct_path: directPath } = await ok.json() as { direct_path: string };
    assert.deepEqual(Buffer.from(await (await fetch(`https://${conn.mediaHost}${directPath}`)).arrayBuffer()), body);
    assert.equal((await fetch(`https://${conn.mediaHost}/v/t62.image/nope.enc`)).status, 404);
  });
});
