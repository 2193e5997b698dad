import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { extractImageThumb } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { MediaServer } from '../support/media-server.js';
import { memberOf, phoneGot } from '../support/simulated-phone.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/** A real 64 × 32 JPEG (drawn from an SVG by the image library Baileys finds, sharp here). */
const PHOTO = (await extractImageThumb(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32"><rect width="64" height="32" fill="#c03"/></svg>'), 64)).buffer;

/** The size of a JPEG (base64 as a decrypted message carries it) as the image library reads it. */
async function jpegSize(base64: string): Promise<{ width?: number; height?: number }> {
  const bytes = Buffer.from(base64, 'base64');
  assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xd8], 'a JPEG');
  return (await extractImageThumb(bytes)).original;
}

/**
 * Inline previews (`jpegThumbnail`) through Parley on the simulator: an image Parley sends reaches the phone
 * with the preview Baileys makes of it, a link (`/message/link`) with the bytes of its `thumbnailUrl`, and an
 * image a phone sends reaches Parley's record with the phone's preview.
 */
describe('WhatsApp inline previews through Parley, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let media: MediaServer;
  let api: Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];
  let instanceId: string;
  const [shop, friend] = ['5511987659701', '5511987659702'];
  const env = useSimulatedWhatsApp({ allowPrivateUrls: true });

  before(async () => {
    ({ sim, t } = env);
    media = await MediaServer.start({ '/thumb.jpg': { body: PHOTO, type: 'image/jpeg' } });
    ({ api } = await env.shopWithFriend(shop, friend, 'thumbnails'));
    instanceId = (await api.call('getInstance')).instance.id as string;
  });
  after(async () => {
    await media.stop();
  });

  const arrived = async (sent: { data: { key: { id: string } } }) => memberOf((await phoneGot(sim, t, friend, sent.data.key.id)).message);

  it('an image Parley sends carries a 32-pixel-wide preview of it; a link the bytes of its thumbnailUrl', { timeout: 60_000 }, async () => {
    const [kind, image] = await arrived(await api.call('sendBase64Image', { body: { to: friend, base64: `data:image/jpeg;base64,${PHOTO.toString('base64')}` } }));
    assert.equal(kind, 'imageMessage');
    assert.deepEqual(await jpegSize(image.jpegThumbnail), { width: 32, height: 16 });

    const [linkKind, link] = await arrived(await api.call('sendLink', {
      body: { to: friend, title: 'Loja', text: 'Novidades', description: 'Coleção de verão', thumbnailUrl: `${media.url}/thumb.jpg`, sourceUrl: 'https://loja.example/' },
    }));
    assert.deepEqual([linkKind, link.title, link.matchedText], ['extendedTextMessage', 'Loja', 'https://loja.example/']);
    assert.deepEqual(Buffer.from(link.jpegThumbnail, 'base64'), PHOTO);
  });

  it('an image a phone sends: the stored record keeps the phone\'s preview, the webhook event carries none', { timeout: 60_000 }, async () => {
    const preview = (await extractImageThumb(PHOTO, 16)).buffer;
    const sent = await sim.simulator.sendMedia(friend, shop, { kind: 'image', data: PHOTO, mimetype: 'image/jpeg', thumbnail: preview });
    const event = await t.waitFor(() => t.events.find((e): e is Extract<typeof e, { type: 'message' }> => e.type === 'message' && e.instance === instanceId && e.message.id === sent.id), 20_000, 'the image');
    // Webhooks carry the message without its storage record (docs/webhooks.md).
    const { record, ...delivered } = event.message;
    assert.equal(JSON.stringify(delivered).includes('jpegThumbnail'), false);
    assert.deepEqual(Buffer.from(String((record?.message as { imageMessage?: { jpegThumbnail?: string } }).imageMessage?.jpegThumbnail), 'base64'), preview);
    const stored = await api.call('getMessage', { params: { messageId: sent.id } });
    assert.deepEqual(Buffer.from(String((stored.data.message as { imageMessage?: { jpegThumbnail?: string } }).imageMessage?.jpegThumbnail), 'base64'), preview);
  });
});
