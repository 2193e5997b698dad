import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { downloadMediaMessage, jidNormalizedUser } from '@whiskeysockets/baileys';
import { trustSimulatorMedia, type RunningSimulator } from '../src/index.js';
import { refusal, TestClient, useSimulator, waitFor } from './client.js';

describe('status stories, LID addressing and the stanza log with the Baileys socket', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('a story Baileys posts reaches the phones of its audience only, who decrypt it; a phone\'s story reaches Baileys', { timeout: 60_000 }, async () => {
    const alice = sim.simulator.createAccount({ number: '5511987650101', pushName: 'Alice' });
    const bob = sim.simulator.createAccount({ number: '5511987650102', pushName: 'Bob' });
    const carol = sim.simulator.createAccount({ number: '5511987650103', pushName: 'Carol' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(alice.number, qr));
    const sent = await client.sock!.sendMessage('status@broadcast', { text: 'Promoção de hoje' }, { statusJidList: [bob.jid], broadcast: true });
    await waitFor(() => sim.simulator.received(bob.number).some((m) => m.id === sent!.key.id), 'Bob\'s phone to decrypt the story');
    const story = sim.simulator.received(bob.number).find((m) => m.id === sent!.key.id)!;
    assert.deepEqual([story.group, story.fromNumber, story.text ?? (story.message.extendedTextMessage as { text?: string })?.text], ['status@broadcast', alice.number, 'Promoção de hoje']);
    assert.equal(sim.simulator.received(carol.number).length, 0, 'outside the audience');
    assert.deepEqual(sim.simulator.undecryptable(bob.number), []);

    const posted = await sim.simulator.postStatus(carol.number, 'Bom dia!', [alice.number]);
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === posted.id && m.message), 'the phone\'s story at Baileys');
    const got = client.seen.upserts.find((m) => m.key.id === posted.id)!;
    assert.equal(got.key.remoteJid, 'status@broadcast');
    assert.equal(got.key.fromMe, false);
    assert.ok((got.key.participant ?? '').startsWith(carol.number));
    assert.equal(got.message?.extendedTextMessage?.text, 'Bom dia!');

    // Bad stories over HTTP: clear JSON errors, and the phone sends nothing.
    const before = sim.simulator.sent(carol.number).length;
    const post = (body: unknown) => fetch(`${sim.controlUrl}/accounts/${carol.number}/status`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for (const [body, status, code] of [
      [{ text: 'x', audience: [] }, 400, 'validation_failed:invalid_audience body.audience'], [{ text: '', audience: [alice.number] }, 400, 'validation_failed:invalid_text body.text'],
      [{ text: 'x', audience: '5511' }, 400, 'validation_failed body.audience'], [{ text: 'x', audience: ['5511900000009'] }, 404, 'account_not_found'],
    ] as const) {
      const res = await post(body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(refusal({ status: res.status, body: await res.json() }), code);
    }
    assert.equal(sim.simulator.sent(carol.number).length, before);
  });

  it('image and video stories: Baileys\' reach the audience\'s phones, which decrypt the file; a phone\'s reach Baileys, which downloads them', { timeout: 60_000 }, async () => {
    const ana = sim.simulator.createAccount({ number: '5511987650121', pushName: 'Ana' });
    const bia = sim.simulator.createAccount({ number: '5511987650122', pushName: 'Bia' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(ana.number, qr));
    // Baileys uploads to and downloads from the simulator's media host over HTTPS under its own certificate.
    const untrustMedia = trustSimulatorMedia(sim.mediaCertificate);
    after(untrustMedia);
    const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(700)]);
    const clip = Buffer.concat([Buffer.from('\u0000\u0000\u0000\u0018ftypmp42', 'latin1'), randomBytes(3000)]);
    const image = await client.sock!.sendMessage('status@broadcast', { image: photo, caption: 'Vitrine' }, { statusJidList: [bia.jid], broadcast: true });
    const video = await client.sock!.sendMessage('status@broadcast', { video: clip, caption: 'Bastidores' }, { statusJidList: [bia.jid], broadcast: true });
    for (const [sent, bytes, kind] of [[image, photo, 'image'], [video, clip, 'video']] as const) {
      await waitFor(() => sim.simulator.received(bia.number).some((m) => m.id === sent!.key.id && m.media), `Bia's phone to decrypt the ${kind} story`);
      const got = sim.simulator.received(bia.number).find((m) => m.id === sent!.key.id)!;
      assert.deepEqual([got.group, got.media?.kind, got.media?.error], ['status@broadcast', kind, undefined]);
      assert.deepEqual(sim.simulator.receivedMedia(bia.number, got.id).data, bytes);
    }

    // The phone posts an image and a video story (control API over HTTP): Baileys gets both and downloads each file.
    const post = (body: unknown) => fetch(`${sim.controlUrl}/accounts/${bia.number}/status`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const posted: string[] = [];
    for (const [kind, bytes, mimetype] of [['image', photo, 'image/jpeg'], ['video', clip, 'video/mp4']] as const) {
      const res = await post({ media: { kind, data: bytes.toString('base64'), mimetype, caption: `Meu ${kind}` }, audience: [ana.number] });
      assert.equal(res.status, 201);
      posted.push((await res.json() as { id: string }).id);
    }
    await waitFor(() => posted.every((id) => client.seen.upserts.some((m) => m.key.id === id && m.message)), 'the phone\'s media stories at Baileys');
    const [gotImage, gotVideo] = posted.map((id) => client.seen.upserts.find((m) => m.key.id === id)!);
    assert.deepEqual([gotImage!.key.remoteJid, gotImage!.message?.imageMessage?.caption, gotVideo!.message?.videoMessage?.caption], ['status@broadcast', 'Meu image', 'Meu video']);
    assert.deepEqual(await downloadMediaMessage(gotImage!, 'buffer', {}), photo);
    assert.deepEqual(await downloadMediaMessage(gotVideo!, 'buffer', {}), clip);
    // A story's media is an image or a video: nothing else is posted.
    const before = sim.simulator.sent(bia.number).length;
    const bad = await post({ media: { kind: 'audio', data: clip.toString('base64'), mimetype: 'audio/ogg' }, audience: [ana.number] });
    const error = (await bad.json() as { error: { code: string; details?: { reason?: string } } }).error;
    assert.deepEqual([bad.status, error.code, error.details?.reason], [400, 'validation_failed', 'invalid_media']);
    assert.equal(sim.simulator.sent(bia.number).length, before);
    client.end();
  });

  it('usync answers each account\'s LID, and a message addressed to the LID reaches the account\'s phone', { timeout: 60_000 }, async () => {
    const dora = sim.simulator.createAccount({ number: '5511987650111', pushName: 'Dora' });
    const eli = sim.simulator.createAccount({ number: '5511987650112', pushName: 'Eli' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(dora.number, qr));
    const sock = client.sock!;
    const [found] = (await sock.onWhatsApp(eli.number)) ?? [];
    assert.deepEqual([found?.exists, found?.jid], [true, eli.jid]);
    assert.equal(await sock.signalRepository.lidMapping.getLIDForPN(eli.jid), eli.lid);
    assert.equal(jidNormalizedUser((await sock.signalRepository.lidMapping.getPNForLID(eli.lid)) ?? ''), eli.jid);
    const sent = await sock.sendMessage(eli.lid, { text: 'por LID' });
    await waitFor(() => sim.simulator.received(eli.number).some((m) => m.id === sent!.key.id), 'Eli\'s phone to get the LID-addressed message');
    assert.equal(sim.simulator.received(eli.number).find((m) => m.id === sent!.key.id)!.text, 'por LID');

    // The inspection endpoint lists the stanzas Dora's client sent, the usync query and the message among them.
    const res = await fetch(`${sim.controlUrl}/accounts/${dora.number}/stanzas?tag=message`);
    const messages = await res.json() as Array<{ device: string; stanza: { attrs: Record<string, string> } }>;
    const stanza = messages.find((m) => m.stanza.attrs.id === sent!.key.id);
    assert.equal(stanza?.stanza.attrs.to, eli.lid);
    assert.equal(stanza?.device, sim.simulator.getAccount(dora.number).devices[0]!.jid);
    assert.ok(sim.simulator.stanzas(dora.number, 'iq').some((s) => s.stanza.attrs.xmlns === 'usync'));
  });
});
