import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { MediaServer, SAMPLE_FILES, SAMPLES, sha256Base64 } from '../support/media-server.js';
import { memberOf, phoneGot } from '../support/simulated-phone.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Spec 4.2's media sends through Parley's REST API, on Baileys' real socket against the simulator: the
 * receiving phone decrypts each message, and for the kinds it downloads (image, audio, document) the
 * file it decrypts from the simulator's media host is the very file Parley was given.
 */
describe('WhatsApp media sends, decrypted on the simulated phone', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let media: MediaServer;
  let api: Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];
  const shop = '5511987658001';
  const friend = '5511987658002';
  const env = useSimulatedWhatsApp({ allowPrivateUrls: true });
  before(() => {
    ({ sim, t } = env);
  });
  before(async () => {
    media = await MediaServer.start(SAMPLE_FILES);
    ({ api } = await env.shopWithFriend(shop, friend, 'media-sends'));
  });
  after(async () => {
    await media.stop();
  });
  const url = (path: string) => `${media.url}${path}`;
  /** The decrypted message on the friend's phone, and its content member. */
  const arrived = async (sent: { data: { key: { id: string } } }) => {
    const got = await phoneGot(sim, t, friend, sent.data.key.id);
    assert.equal(got.fromNumber, shop);
    return { got, member: memberOf(got.message) };
  };
  /** The file the phone downloaded from the media host and decrypted. */
  const fileOf = (id: string) => sim.simulator.receivedMedia(friend, id).data;

  it('image by URL and by base64 (data URI), with their captions: the phone decrypts the same bytes', { timeout: 60_000 }, async () => {
    const byUrl = await arrived(await api.call('sendImage', { body: { to: friend, url: url('/a.png'), caption: 'vitrine' } }));
    assert.equal(byUrl.member[0], 'imageMessage');
    assert.deepEqual([byUrl.member[1].mimetype, byUrl.member[1].caption], ['image/png', 'vitrine']);
    assert.deepEqual(fileOf(byUrl.got.id), SAMPLES.png);

    const b64 = await arrived(await api.call('sendBase64Image', { body: { to: friend, base64: `data:image/jpeg;base64,${SAMPLES.jpeg.toString('base64')}`, caption: 'foto' } }));
    assert.deepEqual([b64.member[0], b64.member[1].mimetype, b64.member[1].caption], ['imageMessage', 'image/jpeg', 'foto']);
    assert.deepEqual(fileOf(b64.got.id), SAMPLES.jpeg);
  });

  it('audio by URL and by base64: the phone decrypts the same bytes', { timeout: 60_000 }, async () => {
    const byUrl = await arrived(await api.call('sendAudio', { body: { to: friend, url: url('/a.mp3') } }));
    assert.deepEqual([byUrl.member[0], byUrl.member[1].mimetype], ['audioMessage', 'audio/mpeg']);
    assert.deepEqual(fileOf(byUrl.got.id), SAMPLES.mp3);
    const voice = await arrived(await api.call('sendBase64Audio', { body: { to: friend, base64: `data:audio/ogg;base64,${SAMPLES.ogg.toString('base64')}` } }));
    assert.equal(voice.member[0], 'audioMessage');
    assert.match(String(voice.member[1].mimetype), /^audio\/ogg/);
    assert.deepEqual(fileOf(voice.got.id), SAMPLES.ogg);
  });

  it('document by URL and by base64, with mimetype, file name and a caption: the phone decrypts the same bytes', { timeout: 60_000 }, async () => {
    const byUrl = await arrived(await api.call('sendDocument', { body: { to: friend, url: url('/a.pdf'), mimetype: 'application/pdf', fileName: 'boleto.pdf', caption: 'segunda via' } }));
    assert.deepEqual([byUrl.member[0], byUrl.member[1].mimetype, byUrl.member[1].fileName, byUrl.member[1].caption], ['documentMessage', 'application/pdf', 'boleto.pdf', 'segunda via']);
    assert.deepEqual(fileOf(byUrl.got.id), SAMPLES.pdf);
    const b64 = await arrived(await api.call('sendBase64Document', {
      body: { to: friend, base64: `data:application/pdf;base64,${SAMPLES.pdf.toString('base64')}`, mimetype: 'application/pdf', fileName: 'nota.pdf' },
    }));
    assert.deepEqual([b64.member[0], b64.member[1].fileName], ['documentMessage', 'nota.pdf']);
    assert.deepEqual(fileOf(b64.got.id), SAMPLES.pdf);
  });

  // The simulated phone downloads only images, audio and documents; for these the decrypted message
  // carries the plaintext's SHA-256, which must be that of the file Parley fetched.
  it('video with caption, video note and sticker: the decrypted message names the file Parley fetched', { timeout: 60_000 }, async () => {
    const video = await arrived(await api.call('sendVideo', { body: { to: friend, url: url('/a.mp4'), caption: 'unboxing' } }));
    assert.equal(video.member[0], 'videoMessage');
    assert.deepEqual([video.member[1].mimetype, video.member[1].caption, video.member[1].fileSha256], ['video/mp4', 'unboxing', sha256Base64(SAMPLES.mp4)]);

    const note = await arrived(await api.call('sendVideoNote', { body: { to: friend, url: url('/a.mp4') } }));
    const [noteName, noteValue] = note.member;
    assert.ok(noteName === 'ptvMessage' || (noteName === 'videoMessage' && noteValue.ptv === true), `a round video note, got ${noteName}`);
    assert.equal(noteValue.fileSha256, sha256Base64(SAMPLES.mp4));

    const sticker = await arrived(await api.call('sendSticker', { body: { to: friend, url: url('/a.webp') } }));
    assert.deepEqual([sticker.member[0], sticker.member[1].mimetype, sticker.member[1].fileSha256], ['stickerMessage', 'image/webp', sha256Base64(SAMPLES.webp)]);
  });
});
