import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto } from '@whiskeysockets/baileys';
import { connectOpen, createHarness, PEER, PEER_JID } from './harness.js';

function plain(message: unknown): unknown {
  return JSON.parse(JSON.stringify(proto.Message.toObject(proto.Message.fromObject(message as Record<string, unknown>), {
    longs: String, enums: String, bytes: String,
  })));
}

describe('sending: preconditions and media download', () => {
  it('sending while not connected is a 409 conflict', async () => {
    const h = await createHarness();
    await assert.rejects(h.adapter.capabilities.messaging!.send({ to: PEER, content: { type: 'text', text: 'hi' } }), { status: 409, code: 'not_connected' });
  });

  it('downloadMedia decrypts through Baileys with media re-upload; video notes as video; answers null without media; without a proxy, still the guarded dispatcher', async () => {
    const downloads: unknown[] = [];
    const h = await createHarness({
      download: async (message, sock, _logger, dispatcher) => {
        downloads.push([message.key, plain(message.message), message.message instanceof proto.Message, typeof sock.updateMediaMessage, typeof dispatcher?.dispatch]);
        return Buffer.from('decrypted');
      },
    });
    await connectOpen(h);
    const messaging = h.adapter.capabilities.messaging!;
    const image = {
      key: { remoteJid: PEER_JID, fromMe: false, id: 'IMG1' }, messageTimestamp: '1735700001', status: 'DELIVERY_ACK' as const,
      message: { imageMessage: { url: 'https://mmg.whatsapp.net/x', directPath: '/x', mimetype: 'image/png', mediaKey: 'AAEC' } },
    };
    assert.deepStrictEqual(await messaging.downloadMedia!(image), { data: Buffer.from('decrypted'), mimetype: 'image/png' });
    const note = { ...image, key: { ...image.key, id: 'PTV1' }, message: { ptvMessage: { directPath: '/p', mimetype: 'video/mp4', mediaKey: 'AAEC' } } };
    assert.deepStrictEqual(await messaging.downloadMedia!(note), { data: Buffer.from('decrypted'), mimetype: 'video/mp4' });
    const doc = { ...image, key: { ...image.key, id: 'DOC1' }, message: { documentMessage: { directPath: '/d', mediaKey: 'AAEC', fileName: 'a.pdf' } } };
    assert.deepStrictEqual(await messaging.downloadMedia!(doc), { data: Buffer.from('decrypted'), mimetype: 'application/octet-stream', fileName: 'a.pdf' });
    assert.equal(await messaging.downloadMedia!({ ...image, message: { conversation: 'no media' } }), null);
    assert.deepStrictEqual(downloads, [
      [image.key, { imageMessage: image.message.imageMessage }, true, 'function', 'function'],
      [note.key, { videoMessage: note.message.ptvMessage }, true, 'function', 'function'],
      [doc.key, { documentMessage: doc.message.documentMessage }, true, 'function', 'function'],
    ]);
    await h.adapter.stop();
  });
});
