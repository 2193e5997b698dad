import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { DEFAULT_MEDIA_LIMITS, type MessageRecord } from '@parley/core';
import { startCountingListener, type CountingListener } from '@parley/testkit';
import { connectOpen, createHarness, PEER_JID, type Harness } from './harness.js';
import { cdnTls, documentMessage, encryptMedia, startCdn, type EncryptedMedia, type FakeCdn } from '../src/testing/index.js';
import { fixedResolver } from './web-host.js';

/** `media.maxDownloadBytes` of these tests: 256 KiB (a multiple of the AES block, like the default). */
const LIMIT = 256 * 1024;
/** A body far larger than the limit and than what loopback socket buffers hold. */
const HUGE = 16 * 1024 * 1024;

/**
 * Received media is downloaded with Baileys' real `downloadMediaMessage` (the driver's default
 * downloader) from a TLS stand-in for WhatsApp's CDN serving real WhatsApp-encrypted files, and
 * never more than `media.maxDownloadBytes` of it: a larger declared `fileLength` is refused before
 * connecting; a `fileLength` that lies is caught while downloading, the connection closed at once.
 */
describe('received WhatsApp media is bounded by media.maxDownloadBytes', () => {
  let tls: { key: string; cert: string };
  let cdn: FakeCdn;
  let listener: CountingListener;
  let small: EncryptedMedia;
  let exact: EncryptedMedia;
  let overByOne: EncryptedMedia;
  let huge: EncryptedMedia;
  let h: Harness | undefined;

  before(async () => {
    tls = await cdnTls();
    [small, exact, overByOne, huge] = await Promise.all([
      encryptMedia(randomBytes(100_000)), encryptMedia(randomBytes(LIMIT)), encryptMedia(randomBytes(LIMIT + 1)), encryptMedia(randomBytes(HUGE)),
    ]);
    cdn = await startCdn(tls, {
      '/v/t62.7119-24/small.enc': { body: small.body, contentLength: true },
      '/v/t62.7119-24/exact.enc': { body: exact.body, contentLength: true },
      '/v/t62.7119-24/over-by-one.enc': { body: overByOne.body, contentLength: false },
      '/v/t62.7119-24/huge-chunked.enc': { body: huge.body, contentLength: false },
      '/v/t62.7119-24/huge.enc': { body: huge.body, contentLength: true },
      '/v/t62.7119-24/reset.enc': { body: small.body, contentLength: true, resetAfter: 64 * 1024 },
    });
    listener = await startCountingListener();
  });
  afterEach(async () => {
    await h?.adapter.stop();
    h = undefined;
  });
  after(async () => {
    await cdn.close();
    await listener.close();
  });

  async function download(record: MessageRecord) {
    // The CDN is on loopback here: private URLs allowed, mmg.whatsapp.net resolved to it, its test CA trusted.
    h = await createHarness({
      allowPrivateUrls: true, resolveHost: fixedResolver({ 'mmg.whatsapp.net': ['127.0.0.1'] }), mediaTls: { ca: tls.cert },
      mediaLimits: { ...DEFAULT_MEDIA_LIMITS, maxDownloadBytes: LIMIT },
    });
    await connectOpen(h);
    return h.adapter.capabilities.messaging!.downloadMedia!(record);
  }

  const requestsTo = (path: string) => cdn.requests.filter((r) => r.path === path);

  it('a file under the limit: the exact bytes, the whole body read', async () => {
    const blob = await download(documentMessage(PEER_JID, small, { port: cdn.port, path: '/v/t62.7119-24/small.enc', fileLength: small.plain.length }));
    assert.deepStrictEqual(blob, { data: small.plain, mimetype: 'application/pdf', fileName: 'report.pdf' });
    await cdn.settled();
    assert.deepStrictEqual(requestsTo('/v/t62.7119-24/small.enc').map((r) => r.closedEarly), [false]);
  });

  it('a file of exactly the limit is downloaded; one byte more (its fileLength lying) is 413 media_too_large', async () => {
    const blob = await download(documentMessage(PEER_JID, exact, { port: cdn.port, path: '/v/t62.7119-24/exact.enc', fileLength: LIMIT }));
    assert.ok(blob?.data.equals(exact.plain));
    await h!.adapter.stop();
    await assert.rejects(download(documentMessage(PEER_JID, overByOne, { port: cdn.port, path: '/v/t62.7119-24/over-by-one.enc', fileLength: 1000 })), {
      status: 413, code: 'media_too_large', details: { limit: LIMIT, setting: 'media.maxDownloadBytes' },
    });
  });

  it('a declared fileLength over the limit: 413 naming the size and the limit, before any connection', async () => {
    const record = documentMessage(PEER_JID, huge, { port: listener.port, path: '/v/t62.7119-24/huge.enc', fileLength: HUGE });
    await assert.rejects(download(record), (err: { status?: number; code?: string; message?: string; details?: unknown }) => {
      assert.equal(err.status, 413);
      assert.equal(err.code, 'media_too_large');
      assert.equal(err.message, `media of message ${record.key.id} is ${HUGE} bytes, over ${LIMIT} bytes, the limit of received media (media.maxDownloadBytes)`);
      assert.deepStrictEqual(err.details, { limit: LIMIT, setting: 'media.maxDownloadBytes', size: HUGE });
      return true;
    });
    assert.equal(listener.connections(), 0);
  });

  it('a small fileLength that lies, the CDN sending 16 MiB chunked: 413 once the limit is passed, the connection closed early', async () => {
    const record = documentMessage(PEER_JID, huge, { port: cdn.port, path: '/v/t62.7119-24/huge-chunked.enc', fileLength: 1000 });
    await assert.rejects(download(record), {
      status: 413, code: 'media_too_large', message: `media of message ${record.key.id} is larger than ${LIMIT} bytes, the limit of received media (media.maxDownloadBytes)`,
    });
    await cdn.settled();
    const [seen] = requestsTo('/v/t62.7119-24/huge-chunked.enc');
    assert.equal(seen?.closedEarly, true);
    assert.ok(seen.written < HUGE / 2, `the CDN wrote ${seen.written} of ${HUGE} bytes`);
  });

  it('a small fileLength that lies, the CDN declaring 16 MiB: 413 on its Content-Length, before the body is read', async () => {
    await assert.rejects(download(documentMessage(PEER_JID, huge, { port: cdn.port, path: '/v/t62.7119-24/huge.enc', fileLength: 1000 })), { status: 413, code: 'media_too_large' });
    await cdn.settled();
    const [seen] = requestsTo('/v/t62.7119-24/huge.enc');
    assert.equal(seen?.closedEarly, true);
    assert.ok(seen.written < HUGE / 2, `the CDN wrote ${seen.written} of ${HUGE} bytes`);
  });

  it('a connection reset mid-body: a 502 upstream error (no unhandled stream error), and the next download works', async () => {
    await assert.rejects(download(documentMessage(PEER_JID, small, { port: cdn.port, path: '/v/t62.7119-24/reset.enc', fileLength: small.plain.length })), { status: 502, code: 'upstream_error' });
    await h!.adapter.stop();
    const blob = await download(documentMessage(PEER_JID, small, { port: cdn.port, path: '/v/t62.7119-24/small.enc', fileLength: small.plain.length }));
    assert.ok(blob?.data.equals(small.plain));
  });
});
