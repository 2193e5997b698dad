import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MediaDownloadTimeoutError, MediaTooLargeError, ParleyError, UpstreamError, type MessageRecord } from '@parley/core';
import { MetaMediaDownloader } from '../src/index.js';
import { useMockGraph } from '../src/testing/index.js';

const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
const CDN_PATH = '/v/t1.15752-9/448311222_n.jpg';

function record(message: MessageRecord['message']): MessageRecord {
  return { key: { remoteJid: '7012345678901234', fromMe: false, id: 'm_1' }, message, messageTimestamp: '1718000001', status: 'DELIVERY_ACK', provider: 'messenger' };
}

describe('MetaMediaDownloader', () => {
  const cdn = useMockGraph();
  const downloader = (limits: Partial<{ maxBytes: number; allowPrivate: boolean; timeoutMs: number; idleMs: number }> = {}) =>
    new MetaMediaDownloader('Messenger', {
      maxBytes: limits.maxBytes ?? 1024, timeoutMs: limits.timeoutMs ?? 5000, idleMs: limits.idleMs ?? 5000, allowPrivate: limits.allowPrivate ?? true,
    });
  const image = () => record({ imageMessage: { url: `${cdn.url}${CDN_PATH}?oe=66A0B1C2`, mimetype: 'image/jpeg' } });

  it('downloads the attachment the record links to, with the type the CDN names', async () => {
    cdn.on('GET', CDN_PATH, { status: 200, body: JPEG, contentType: 'image/jpeg' });
    assert.deepStrictEqual(await downloader().download(image()), { data: JPEG, mimetype: 'image/jpeg' });
    const doc = record({ documentMessage: { url: `${cdn.url}/files/price-list.pdf`, mimetype: 'application/pdf', fileName: 'price-list.pdf' } });
    cdn.on('GET', '/files/price-list.pdf', { status: 200, body: Buffer.from('%PDF-1.4'), contentType: 'application/pdf' });
    assert.deepStrictEqual(await downloader().download(doc), { data: Buffer.from('%PDF-1.4'), mimetype: 'application/pdf', fileName: 'price-list.pdf' });
    assert.deepStrictEqual(cdn.requests.map((r) => ({ method: r.method, path: r.path, query: r.query })), [
      { method: 'GET', path: CDN_PATH, query: { oe: '66A0B1C2' } },
      { method: 'GET', path: '/files/price-list.pdf', query: {} },
    ]);
  });

  it('answers null for a record without media, without any request', async () => {
    assert.equal(await downloader().download(record({ extendedTextMessage: { text: 'hi' } })), null);
    assert.equal(cdn.requests.length, 0);
  });

  it('answers 404 media_not_found, saying why, once Meta\'s link expired', async () => {
    cdn.on('GET', CDN_PATH, { status: 403, body: { error: 'URL signature expired' } });
    await assert.rejects(downloader().download(image()), (err: unknown) => {
      assert.ok(err instanceof ParleyError);
      assert.deepStrictEqual({ status: err.status, code: err.code, message: err.message }, {
        status: 404, code: 'media_not_found',
        message: 'media of message m_1 is no longer available: Messenger\'s link answered HTTP 403 '
          + '(Meta\'s attachment links expire; turn save_media on to keep received media)',
      });
      return true;
    });
  });

  it('stops at the size limit (413 media_too_large, as received media on every channel) and on CDN outages (502, retryable)', async () => {
    cdn.on('GET', CDN_PATH, { status: 200, body: Buffer.alloc(2048, 1), contentType: 'image/jpeg' });
    const record = image();
    await assert.rejects(downloader().download(record), (err: unknown) => {
      assert.ok(err instanceof MediaTooLargeError);
      assert.deepStrictEqual([err.status, err.code, err.message, err.details], [
        413, 'media_too_large', `media of message ${record.key.id} is larger than 1024 bytes, the limit of received media (media.maxDownloadBytes)`,
        { limit: 1024, setting: 'media.maxDownloadBytes' },
      ]);
      return true;
    });
    cdn.on('GET', CDN_PATH, { status: 503, body: { error: 'unavailable' } });
    await assert.rejects(downloader().download(image()), (err: unknown) => {
      assert.ok(err instanceof UpstreamError);
      assert.deepStrictEqual([err.message, err.details], ['Messenger media download failed: HTTP 503', { retryable: true, kind: 'status' }]);
      return true;
    });
  });

  it('a CDN that does not answer: 504 media_download_timeout naming media.downloadIdleMs or media.downloadTimeoutMs, whichever passed first', async () => {
    cdn.on('GET', CDN_PATH, 'hang');
    const timedOut = async (limits: { timeoutMs: number; idleMs: number }) => {
      const started = Date.now();
      const err = await downloader(limits).download(image()).then(() => assert.fail('downloaded'), (e: unknown) => e);
      assert.ok(err instanceof MediaDownloadTimeoutError, String(err));
      assert.ok(Date.now() - started < 2000, `answered after ${Date.now() - started} ms`);
      return [err.status, err.code, err.message, err.details];
    };
    assert.deepStrictEqual(await timedOut({ timeoutMs: 5000, idleMs: 200 }), [
      504, 'media_download_timeout', 'media of message m_1 was not downloaded: nothing arrived for 200 ms, the limit of received media (media.downloadIdleMs)',
      { limitMs: 200, setting: 'media.downloadIdleMs', retryable: true },
    ]);
    assert.deepStrictEqual(await timedOut({ timeoutMs: 300, idleMs: 5000 }), [
      504, 'media_download_timeout', 'media of message m_1 was not downloaded within 300 ms, the limit of received media (media.downloadTimeoutMs)',
      { limitMs: 300, setting: 'media.downloadTimeoutMs', retryable: true },
    ]);
  });

  it('refuses a link to a private address unless the host allows private URLs', async () => {
    await assert.rejects(downloader({ allowPrivate: false }).download(image()), (err: unknown) => {
      assert.ok(err instanceof UpstreamError);
      assert.equal(err.message, 'Messenger media link refused: media link points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)');
      return true;
    });
    assert.equal(cdn.requests.length, 0);
  });
});
