import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { extractImageThumb } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { controlApi, refusal, TestClient, useSimulator, waitFor } from './client.js';
import { JPEG } from './jpeg.js';

/** The size of a JPEG as an image library reads it (Baileys' extractImageThumb reports the original's). */
async function jpegSize(data: Uint8Array | string): Promise<{ width?: number; height?: number }> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : Buffer.from(data);
  assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xd8], 'a JPEG');
  return (await extractImageThumb(bytes)).original;
}

describe('inline previews (jpegThumbnail) of images and videos, both ways over the Baileys socket', () => {
  let sim: RunningSimulator;
  const call = controlApi(() => sim);
  useSimulator((started) => { sim = started; }, { media: true });

  it('a phone\'s image carries a 32-pixel-wide JPEG of it, a video a placeholder JPEG, a given preview as given', { timeout: 60_000 }, async () => {
    const [me, friend] = ['5511987658901', '5511987658902'];
    for (const number of [me, friend]) sim.simulator.createAccount({ number });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me, qr));
    const photo = await sim.simulator.sendMedia(friend, me, { kind: 'image', data: JPEG, mimetype: 'image/jpeg' });
    const video = await sim.simulator.sendMessage(friend, { to: me }, { kind: 'video', data: randomBytes(2000), mimetype: 'video/mp4' });
    const given = randomBytes(500);
    const chosen = await call('POST', `/accounts/${friend}/media`, { to: me, kind: 'image', data: JPEG.toString('base64'), mimetype: 'image/jpeg', thumbnail: given.toString('base64') });
    assert.equal(chosen.status, 201, JSON.stringify(chosen.body));
    const ids = [photo.id, video.id, chosen.body.id as string];
    await waitFor(() => ids.every((id) => client.seen.upserts.some((m) => m.key.id === id && m.message)), 'the three messages');
    const [p, v, c] = ids.map((id) => client.seen.upserts.find((m) => m.key.id === id)!.message!);
    assert.deepEqual(await jpegSize(p!.imageMessage!.jpegThumbnail!), { width: 32, height: 32 }, 'the 8×8 image scaled to 32 wide');
    assert.deepEqual(await jpegSize(v!.videoMessage!.jpegThumbnail!), { width: 32, height: 32 });
    assert.deepEqual(Buffer.from(c!.imageMessage!.jpegThumbnail!), given);
    client.end();
  });

  it('an image a companion sends reaches the phone with the preview Baileys made; a document has none', { timeout: 60_000 }, async () => {
    const [me, friend] = ['5511987658911', '5511987658912'];
    for (const number of [me, friend]) sim.simulator.createAccount({ number });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me, qr));
    const image = await client.sock!.sendMessage(`${friend}@s.whatsapp.net`, { image: JPEG, mimetype: 'image/jpeg' });
    const doc = await client.sock!.sendMessage(`${friend}@s.whatsapp.net`, { document: Buffer.from('%PDF-1.4'), mimetype: 'application/pdf', fileName: 'a.pdf' });
    await waitFor(() => [image, doc].every((m) => sim.simulator.received(friend).some((r) => r.id === m!.key.id)), 'both on the phone');
    const got = (id: string) => sim.simulator.received(friend).find((r) => r.id === id)!.message;
    const preview = (got(image!.key.id!).imageMessage as { jpegThumbnail?: string }).jpegThumbnail;
    assert.deepEqual(await jpegSize(preview!), { width: 32, height: 32 });
    assert.equal((got(doc!.key.id!).documentMessage as { jpegThumbnail?: string }).jpegThumbnail, undefined);
    client.end();
  });

  it('refuses a preview that is not base64 or too large, and nothing is sent', async () => {
    const [ana, beto] = ['5511987658921', '5511987658922'];
    for (const number of [ana, beto]) sim.simulator.createAccount({ number });
    const image = { to: beto, kind: 'image', data: JPEG.toString('base64'), mimetype: 'image/jpeg' };
    assert.equal(refusal(await call('POST', `/accounts/${ana}/media`, { ...image, thumbnail: 'not base64!' })), 'validation_failed body.thumbnail');
    assert.equal(refusal(await call('POST', `/accounts/${ana}/media`, { ...image, thumbnail: randomBytes(65 * 1024).toString('base64') })), 'validation_failed:invalid_media body.thumbnail');
    assert.deepEqual(sim.simulator.sent(ana), []);
  });
});
