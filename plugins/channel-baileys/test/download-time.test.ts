import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { DEFAULT_MEDIA_LIMITS, type MessageRecord } from '@parley/core';
import { connectOpen, createHarness, PEER_JID, type Harness } from './harness.js';
import { cdnTls, documentMessage, encryptMedia, startCdn, type EncryptedMedia, type FakeCdn } from '../src/testing/index.js';
import { fixedResolver } from './web-host.js';

/** `media.downloadIdleMs` and `media.downloadTimeoutMs` of these tests: wide enough that a good download on a loaded machine never idles out. */
const IDLE_MS = 1000;
const TIMEOUT_MS = 4000;

/**
 * Received media is downloaded with Baileys' real `downloadMediaMessage` from a TLS stand-in for
 * WhatsApp's CDN that answers slowly, as a host the message's sender runs can: no headers, a body
 * that stops, a body dripping a few bytes at a time. Each download is stopped within its limit,
 * its connection closed, with 504 `media_download_timeout` naming the limit that passed.
 */
describe('received WhatsApp media is bounded in time by media.downloadTimeoutMs and media.downloadIdleMs', () => {
  let cdn: FakeCdn;
  let media: EncryptedMedia;
  let h: Harness | undefined;

  before(async () => {
    media = await encryptMedia(randomBytes(64 * 1024));
    cdn = await startCdn(await cdnTls(), {
      '/v/t62.7119-24/silent.enc': { body: media.body, contentLength: true, silent: true },
      '/v/t62.7119-24/stalled.enc': { body: media.body, contentLength: true, stallAfter: 1024 },
      // 256 bytes every 200 ms: never idle for IDLE_MS, the whole file would take about 50 s.
      '/v/t62.7119-24/drip.enc': { body: media.body, contentLength: true, drip: { bytes: 256, everyMs: 200 } },
      '/v/t62.7119-24/ok.enc': { body: media.body, contentLength: true },
    });
  });
  afterEach(async () => {
    await h?.adapter.stop();
    h = undefined;
  });
  after(() => cdn.close());

  async function download(record: MessageRecord) {
    h = await createHarness({
      allowPrivateUrls: true, resolveHost: fixedResolver({ 'mmg.whatsapp.net': ['127.0.0.1'] }), mediaTls: { ca: (await cdnTls()).cert },
      mediaLimits: { ...DEFAULT_MEDIA_LIMITS, downloadTimeoutMs: TIMEOUT_MS, downloadIdleMs: IDLE_MS },
    });
    await connectOpen(h);
    return h.adapter.capabilities.messaging!.downloadMedia!(record);
  }

  /** Downloads `path` expecting a time-out; answers the error's parts, having checked the time taken and the closed connection. */
  async function timedOut(path: string, withinMs: number) {
    const record = documentMessage(PEER_JID, media, { port: cdn.port, path, fileLength: media.plain.length });
    const started = Date.now();
    const err = await download(record).then(() => assert.fail('downloaded'), (e: unknown) => e as { status: number; code: string; message: string; details: unknown });
    const took = Date.now() - started;
    assert.ok(took < withinMs, `answered after ${took} ms`);
    await cdn.settled();
    assert.deepStrictEqual(cdn.requests.filter((r) => r.path === path).map((r) => r.closedEarly), [true]);
    return { status: err.status, code: err.code, message: err.message.replace(record.key.id!, '<id>'), details: err.details };
  }

  const idle = {
    status: 504, code: 'media_download_timeout',
    message: `media of message <id> was not downloaded: nothing arrived for ${IDLE_MS} ms, the limit of received media (media.downloadIdleMs)`,
    details: { limitMs: IDLE_MS, setting: 'media.downloadIdleMs', retryable: true },
  };

  it('no headers ever: 504 on media.downloadIdleMs, the connection closed', async () => {
    assert.deepStrictEqual(await timedOut('/v/t62.7119-24/silent.enc', TIMEOUT_MS), idle);
  });

  it('a body that stops: 504 on media.downloadIdleMs, the connection closed', async () => {
    assert.deepStrictEqual(await timedOut('/v/t62.7119-24/stalled.enc', TIMEOUT_MS), idle);
  });

  it('a body dripping a few bytes at a time: 504 on media.downloadTimeoutMs, the connection closed', async () => {
    assert.deepStrictEqual(await timedOut('/v/t62.7119-24/drip.enc', TIMEOUT_MS + 1000), {
      status: 504, code: 'media_download_timeout',
      message: `media of message <id> was not downloaded within ${TIMEOUT_MS} ms, the limit of received media (media.downloadTimeoutMs)`,
      details: { limitMs: TIMEOUT_MS, setting: 'media.downloadTimeoutMs', retryable: true },
    });
  });

  it('a prompt CDN is not affected: the exact bytes', async () => {
    const blob = await download(documentMessage(PEER_JID, media, { port: cdn.port, path: '/v/t62.7119-24/ok.enc', fileLength: media.plain.length }));
    assert.ok(blob?.data.equals(media.plain));
  });
});
