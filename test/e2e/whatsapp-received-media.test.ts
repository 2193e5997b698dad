import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_MEDIA_LIMITS } from '@parley/core';
import { cdnTls, encryptMedia, imageMessage, startCdn, type CdnLink, type EncryptedMedia, type FakeCdn } from '@parley/channel-baileys/testing';
import { apiErrorAnswer } from '../support/api-error.js';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { dataUri } from '../support/media-server.js';
import type { TestServer } from '../support/test-server.js';
import { connectedWhatsApp, receive, startWhatsAppServer } from '../support/whatsapp.js';

/** Limits of received media of this server: small, so every bound is reached in well under a second. */
const LIMIT = 128 * 1024;
/** Far larger than the limit and than what loopback socket buffers hold, so an early close shows. */
const LARGE = 8 * 1024 * 1024;
const IDLE_MS = 1000;
const TIMEOUT_MS = 4000;
const PEER_JID = '5511988887777@s.whatsapp.net';
const IMAGES = '/v/t62.7118-24';

type Answer = { status: number; headers: Headers; body: any; raw: Buffer };

/**
 * Received WhatsApp media through the real server over real HTTP: the real WhatsApp channel plugin
 * over a fake Baileys socket, media downloaded by Baileys' own downloader from a TLS stand-in for
 * WhatsApp's CDN serving files WhatsApp-encrypted with real media keys. GET media answers the
 * exact bytes, or 413 media_too_large / 504 media_download_timeout past `media.*` limits; with
 * save_media on, media within the limits is kept and media past them is not (one warning).
 */
describe('received WhatsApp media through the server', () => {
  let t: TestServer;
  let cdn: FakeCdn;
  let small: EncryptedMedia;
  let large: EncryptedMedia;
  let stalled: EncryptedMedia;
  let instance: Awaited<ReturnType<typeof connectedWhatsApp>>;

  before(async () => {
    [small, large, stalled] = await Promise.all([encryptMedia(randomBytes(20_000), 'image'), encryptMedia(randomBytes(LARGE), 'image'), encryptMedia(randomBytes(100_000), 'image')]);
    cdn = await startCdn(await cdnTls(), {
      [`${IMAGES}/small.enc`]: { body: small.body, contentLength: true },
      [`${IMAGES}/large.enc`]: { body: large.body, contentLength: true },
      [`${IMAGES}/large-chunked.enc`]: { body: large.body, contentLength: false },
      // The CDN writes 64 KiB at a time: the first write, then nothing.
      [`${IMAGES}/stalled.enc`]: { body: stalled.body, contentLength: true, stallAfter: 1024 },
    });
    t = await startWhatsAppServer({
      config: { media: { ...DEFAULT_MEDIA_LIMITS, maxDownloadBytes: LIMIT, downloadIdleMs: IDLE_MS, downloadTimeoutMs: TIMEOUT_MS } },
      captureLogs: true,
    });
    instance = await connectedWhatsApp(t, 'wa-media', '5511900000701');
  });
  after(async () => {
    await t.stop();
    await cdn.close();
  });

  /** A received image from the peer pointing at `path` on `on` (the shared CDN by default), delivered through the socket. */
  async function received(to: { key: string; socket: typeof instance.socket }, media: EncryptedMedia, link: Omit<CdnLink, 'port'>, on = cdn) {
    const message = imageMessage(PEER_JID, media, { ...link, port: on.port }, Math.floor(Date.now() / 1000));
    await receive(t, to, message);
    return message.key.id!;
  }

  const media = (key: string, id: string, format?: 'json' | 'binary'): Promise<Answer> =>
    t.request('GET', `/${key}/message/${id}/media${format ? `?format=${format}` : ''}`);

  /** Asserts both formats answer `status` with `code` in the JSON error model, answering the JSON answer's error. */
  async function refused(key: string, id: string, status: number, code: string) {
    for (const format of ['binary', 'json'] as const) {
      const res = await media(key, id, format);
      assert.deepStrictEqual([res.status, res.headers.get('content-type'), res.body.status, res.body.error?.code], [status, 'application/json; charset=utf-8', status, code], format);
    }
    return (await media(key, id, 'json')).body.error as { code: string; message: string; details: unknown };
  }

  const tooLarge = (id: string, size?: number) => ({
    code: 'media_too_large',
    message: size === undefined
      ? `media of message ${id} is larger than ${LIMIT} bytes, the limit of received media (media.maxDownloadBytes)`
      : `media of message ${id} is ${size} bytes, over ${LIMIT} bytes, the limit of received media (media.maxDownloadBytes)`,
    details: { limit: LIMIT, setting: 'media.maxDownloadBytes', ...(size === undefined ? {} : { size }) },
  });

  const idle = (id: string) => ({
    code: 'media_download_timeout',
    message: `media of message ${id} was not downloaded: nothing arrived for ${IDLE_MS} ms, the limit of received media (media.downloadIdleMs)`,
    details: { limitMs: IDLE_MS, setting: 'media.downloadIdleMs', retryable: true },
  });

  it('a received image is listed in its chat; GET media answers its exact bytes and type, format=json its data URI', async () => {
    const id = await received(instance, small, { path: `${IMAGES}/small.enc`, fileLength: small.plain.length });
    const listed = await t.client(instance.key).call('listChatMessages', { params: { jid: PEER_JID } });
    const record = listed.data.find((m) => m.key.id === id);
    assert.deepStrictEqual([record?.key, record?.provider], [{ remoteJid: PEER_JID, fromMe: false, id }, 'whatsapp']);

    const binary = await media(instance.key, id);
    assert.deepStrictEqual([binary.status, binary.headers.get('content-type'), binary.headers.get('content-length')], [200, 'image/jpeg', String(small.plain.length)]);
    assert.ok(binary.raw.equals(small.plain), 'the decrypted bytes');
    const json = await media(instance.key, id, 'json');
    assert.deepStrictEqual({ status: json.status, body: json.body }, { status: 200, body: { status: 200, data: dataUri('image/jpeg', small.plain) } });
  });

  it('a declared fileLength over media.maxDownloadBytes: 413 media_too_large naming the size, the CDN never asked', async () => {
    const id = await received(instance, large, { path: `${IMAGES}/large.enc`, fileLength: large.plain.length });
    assert.deepStrictEqual(await refused(instance.key, id, 413, 'media_too_large'), tooLarge(id, large.plain.length));
    assert.equal(cdn.requests.filter((r) => r.path === `${IMAGES}/large.enc`).length, 0);
  });

  it('a small fileLength that lies, the body large (declared or chunked): 413 media_too_large, the connection closed early', async () => {
    for (const path of [`${IMAGES}/large.enc`, `${IMAGES}/large-chunked.enc`]) {
      const id = await received(instance, large, { path, fileLength: 1000 });
      assert.deepStrictEqual(await refused(instance.key, id, 413, 'media_too_large'), tooLarge(id), path);
      await cdn.settled();
      const seen = cdn.requests.filter((r) => r.path === path);
      assert.ok(seen.length > 0 && seen.every((r) => r.closedEarly === true && r.written < large.body.length / 2), `${path}: ${JSON.stringify(seen)}`);
    }
  });

  it('the Cloud API describes a received media over the limit, or whose CDN stalls, with its 131052 (media download error)', async () => {
    const over = await received(instance, large, { path: `${IMAGES}/large.enc`, fileLength: large.plain.length });
    const stalling = await received(instance, stalled, { path: `${IMAGES}/stalled.enc`, fileLength: stalled.plain.length });
    for (const [id, status, error] of [[over, 413, tooLarge(over, large.plain.length)], [stalling, 504, idle(stalling)]] as const) {
      // Described, and downloaded at the url a description would give.
      for (const path of [`/${CLOUD_VERSION}/${id}`, `/${CLOUD_VERSION}/${instance.id}/media/${id}`]) {
        const res = await cloudRequest(t, instance.key, 'GET', path);
        assert.deepStrictEqual([res.status, res.body.error?.code, res.body.error?.message, res.body.error?.error_data.details], [status, 131052, '(#131052) Media download error', error.message], path);
      }
    }
  });

  it('a CDN that stalls: 504 media_download_timeout within media.downloadIdleMs, not the whole time-out', async () => {
    const id = await received(instance, stalled, { path: `${IMAGES}/stalled.enc`, fileLength: stalled.plain.length });
    const started = Date.now();
    const res = await media(instance.key, id, 'json');
    const took = Date.now() - started;
    assert.deepStrictEqual({ status: res.status, error: res.body.error }, { status: 504, error: idle(id) });
    assert.ok(took >= IDLE_MS && took < TIMEOUT_MS, `answered after ${took} ms`);
    await assert.rejects(t.client(instance.key).call('getMessageMedia', { params: { messageId: id }, query: { format: 'binary' } }), apiErrorAnswer({ status: 504, error: idle(id) }));
  });

  describe('with save_media on', () => {
    let saving: typeof instance;
    before(async () => {
      saving = await connectedWhatsApp(t, 'wa-save-media', '5511900000702');
      assert.equal((await t.client(saving.key).call('updateInstanceFlags', { query: { saveMedia: true } })).status, 200);
    });

    /** The JSON log lines of warn level about message `id` written since line `from`. */
    const warnings = (from: number, id: string) => t.logs.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l.message === id && l.level === 40);

    it('media within the limits is saved: GET media answers it with its CDN gone', async () => {
      const own = await startCdn(await cdnTls(), { [`${IMAGES}/kept.enc`]: { body: small.body, contentLength: true } });
      const id = await received(saving, small, { path: `${IMAGES}/kept.enc`, fileLength: small.plain.length }, own);
      const copy = await t.waitFor(() => t.server.context.storage.media.get(saving.id, id), 5000, 'the saved media');
      assert.ok(copy.data.equals(small.plain));
      await own.close();
      const binary = await media(saving.key, id);
      assert.deepStrictEqual([binary.status, binary.headers.get('content-type')], [200, 'image/jpeg']);
      assert.ok(binary.raw.equals(small.plain));
    });

    for (const c of [
      { what: 'oversized', path: `${IMAGES}/large-chunked.enc`, file: () => large, fileLength: 1000, error: (id: string) => ({ status: 413, ...tooLarge(id) }) },
      { what: 'stalled', path: `${IMAGES}/stalled.enc`, file: () => stalled, fileLength: 100_000, error: (id: string) => ({ status: 504, ...idle(id) }) },
    ]) {
      it(`${c.what} media is not saved, the message is; one warning with the limit and no stack; GET media answers the same error`, async () => {
        const from = t.logs.length;
        const id = await received(saving, c.file(), { path: c.path, fileLength: c.fileLength });
        await t.settle();
        assert.equal(await t.server.context.storage.media.get(saving.id, id), null);
        const { status, code, message, details } = c.error(id);
        const { limit, limitMs, setting } = details as { limit?: number; limitMs?: number; setting: string };
        assert.deepStrictEqual(warnings(from, id).map((l) => [l.msg, l.setting, l.limit, l.limitMs, 'err' in l]), [[`received media not saved: ${message}`, setting, limit, limitMs, false]]);
        assert.deepStrictEqual(await refused(saving.key, id, status, code), { code, message, details });
      });
    }
  });
});
