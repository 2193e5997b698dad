import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnswerRecorder } from '../support/answer-recorder.js';
import { apiError, apiErrorAnswer } from '../support/api-error.js';
import { dataUri, SAMPLES, sha256Hex } from '../support/media-server.js';
import { MessagingPair, type Phone } from '../support/messaging.js';

/** Spec 4.4 on real SQLite: details, and media as JSON and bytes on both phones; media URLs fetched once. */
describe('message details and media (spec 4.4)', () => {
  let p: MessagingPair;
  let recorder: AnswerRecorder;

  before(async () => {
    p = await MessagingPair.start({ storage: 'sqlite' }, ['5511900000301', '5511900000302']);
    recorder = new AnswerRecorder(p.t);
  });
  after(async () => {
    await p.stop();
  });

  const media = (phone: { key: string }, messageId: string, format?: 'json' | 'binary') =>
    p.t.client(phone.key).call('getMessageMedia', { params: { messageId }, query: format ? { format } : {} });

  /** The media of a message as bytes through the typed client, with the HTTP answer they came in (for its headers). */
  async function binary(phone: Phone, messageId: string, format: 'binary' | undefined = 'binary') {
    const bytes: unknown = await recorder.instance(phone.key).call('getMessageMedia', { params: { messageId }, query: format ? { format } : {} });
    assert.equal(recorder.last.status, 200);
    assert.ok(bytes instanceof Uint8Array, 'media is answered as bytes');
    return { bytes: Buffer.from(bytes), headers: recorder.last.headers };
  }

  /** Asserts both phones serve exactly `bytes` as `mime`, as bytes and as a data URI. */
  async function assertServedOnBothSides(id: string, bytes: Buffer, mime: string, fileName?: string) {
    for (const phone of [p.alice, p.bob]) {
      const res = await binary(phone, id);
      assert.equal(res.headers.get('content-type'), mime);
      assert.equal(res.headers.get('content-length'), String(bytes.length));
      assert.equal(res.headers.get('content-disposition'), fileName ? `inline; filename="${fileName}"` : null);
      assert.ok(res.bytes.equals(bytes), `bytes served to ${phone.number}`);
      assert.equal(sha256Hex(res.bytes), sha256Hex(bytes));
      assert.deepEqual(await media(phone, id, 'json'), { status: 200, data: dataUri(mime, bytes) });
    }
  }

  it('an image sent by URL is fetched once and served back byte for byte by sender and receiver', async () => {
    const url = p.media.serve('/pics/cat.png', { body: SAMPLES.png, type: 'image/png' });
    const record = await p.sendVia('sendImage', { to: p.bob.number, url, caption: 'cat' });
    const got = await p.received(record.key.id);
    assert.equal(got.message.content.type, 'image');
    assert.equal((got.message.content as { media: { sha256: string } }).media.sha256, sha256Hex(SAMPLES.png));
    await assertServedOnBothSides(record.key.id, SAMPLES.png, 'image/png', 'cat.png');
    assert.equal(p.media.hitsOf('/pics/cat.png'), 1);
  });

  it('format defaults to binary (the download address webhooks link to)', async () => {
    const record = await p.sendVia('sendBase64Image', { to: p.bob.number, base64: dataUri('image/jpeg', SAMPLES.jpeg) });
    await p.received(record.key.id);
    const res = await binary(p.bob, record.key.id, undefined);
    assert.equal(res.headers.get('content-type'), 'image/jpeg');
    assert.ok(res.bytes.equals(SAMPLES.jpeg));
  });

  it('base64 documents keep their name and the given type on both sides', async () => {
    const record = await p.sendVia('sendBase64Document', { to: p.bob.number, base64: dataUri('application/octet-stream', SAMPLES.pdf), mimetype: 'application/pdf', fileName: 'contract.pdf' });
    await p.received(record.key.id);
    await assertServedOnBothSides(record.key.id, SAMPLES.pdf, 'application/pdf', 'contract.pdf');
  });

  it('stickers, video notes, voice notes and videos arrive with identical bytes and digests', async () => {
    const sends = [
      { op: 'sendSticker', file: '/s.webp', body: SAMPLES.animatedWebp, type: 'image/webp' },
      { op: 'sendVideoNote', file: '/n.mp4', body: SAMPLES.mp4, type: 'video/mp4' },
      { op: 'sendAudio', file: '/v.ogg', body: SAMPLES.ogg, type: 'audio/ogg' },
      { op: 'sendVideo', file: '/v.mp4', body: SAMPLES.mp4, type: 'video/mp4' },
    ] as const;
    for (const s of sends) {
      const url = p.media.serve(s.file, { body: s.body, type: s.type });
      const record = await p.sendVia(s.op, { to: p.bob.number, url });
      const got = await p.received(record.key.id);
      const content = got.message.content as { media: { id: string; sha256: string; mimeType: string } };
      assert.deepEqual([content.media.id, content.media.sha256, content.media.mimeType], [record.key.id, sha256Hex(s.body), s.type]);
      await assertServedOnBothSides(record.key.id, s.body, s.type, s.file.slice(1));
      assert.equal(p.media.hitsOf(s.file), 1);
    }
  });

  it('the receiver serves media from the server copy (save_media on) or the phone\'s download (off)', async () => {
    const { storage } = p.t.server.context;
    const off = await p.sendVia('sendBase64Audio', { to: p.bob.number, base64: dataUri('audio/mpeg', SAMPLES.mp3) });
    await p.received(off.key.id);
    assert.equal(await storage.media.get(p.bob.id, off.key.id), null);
    await assertServedOnBothSides(off.key.id, SAMPLES.mp3, 'audio/mpeg');

    const bob = p.t.client(p.bob.key);
    assert.equal((await bob.call('updateInstanceFlags', { query: { saveMedia: true } })).status, 200);
    const on = await p.sendVia('sendBase64Audio', { to: p.bob.number, base64: dataUri('audio/mpeg', SAMPLES.mp3) });
    await p.received(on.key.id);
    const copy = await p.t.waitFor(() => storage.media.get(p.bob.id, on.key.id), 5000, 'the server copy');
    assert.ok(copy!.data.equals(SAMPLES.mp3));
    await assertServedOnBothSides(on.key.id, SAMPLES.mp3, 'audio/mpeg');
    assert.equal((await bob.call('updateInstanceFlags', { query: { saveMedia: false } })).status, 200);
  });

  it('details: GET /{key}/message/{id} answers the record on both sides', async () => {
    const record = await p.sendVia('sendText', { to: p.bob.number, text: 'details please' });
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    const mine = await p.t.client(p.alice.key).call('getMessage', { params: { messageId: record.key.id } });
    assert.equal(mine.status, 200);
    assert.deepEqual(Object.keys(mine), ['status', 'data']);
    assert.deepEqual({ ...mine.data, status: 'PENDING' }, record);
    assert.ok(['PENDING', 'SERVER_ACK', 'DELIVERY_ACK'].includes(mine.data.status));
  });

  it('404 media_not_found for a message without media; 404 message_not_found for an unknown id', async () => {
    const record = await p.sendVia('sendText', { to: p.bob.number, text: 'no media here' });
    await p.received(record.key.id);
    const noMedia = apiErrorAnswer({ status: 404, error: { code: 'media_not_found', message: `media of message ${record.key.id} not found` } });
    for (const phone of [p.alice, p.bob]) {
      for (const format of ['json', 'binary'] as const) await assert.rejects(media(phone, record.key.id, format), noMedia, format);
    }
    const unknown = '3EB0FFFFFFFFFFFFFFFFFF';
    const notFound = apiErrorAnswer({ status: 404, error: { code: 'message_not_found', message: `message ${unknown} not found` } });
    await assert.rejects(p.t.client(p.alice.key).call('getMessage', { params: { messageId: unknown } }), notFound);
    await assert.rejects(media(p.alice, unknown), notFound);
  });

  it('a message of another instance is not found; a wrong format is a 400', async () => {
    const record = await p.sendVia('sendBase64Image', { to: p.bob.number, base64: dataUri('image/png', SAMPLES.png) });
    await p.received(record.key.id);
    const third = await p.t.connectedSandbox({ name: 'carol', number: '5511900000303' });
    await assert.rejects(media(third, record.key.id), apiError(404, 'message_not_found'));
    await assert.rejects(p.t.client(third.key).call('getMessage', { params: { messageId: record.key.id } }), apiError(404, 'message_not_found'));
    // A format outside the typed union: sent raw.
    const bad = await p.t.request('GET', `/${p.alice.key}/message/${record.key.id}/media?format=xml`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.message, 'query.format must be one of "json", "binary"');
  });
});
