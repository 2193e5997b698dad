import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { DEFAULT_MEDIA_LIMITS } from '@parley/core';
import type { MediaServing, RunningSimulator } from '@parley/whatsapp-sim';
import { apiErrorAnswer } from '../support/api-error.js';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { dataUri } from '../support/media-server.js';
import type { TestServer } from '../support/test-server.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/** Limits of received media of this server: small, so every bound is reached in well under a second. */
const LIMIT = 128 * 1024;
/** Far larger than the limit and than what loopback socket buffers hold, so an early close shows. */
const LARGE = 8 * 1024 * 1024;
const IDLE_MS = 1000;
const TIMEOUT_MS = 4000;

type Answer = { status: number; headers: Headers; body: any; raw: Buffer };

/**
 * Received WhatsApp media through the real server over real HTTP: images a simulated phone sends, WhatsApp-
 * encrypted on the simulator's media host, received by the unmodified Baileys socket and downloaded by the
 * channel. The host misbehaves on request (`serve`: no Content-Length, a stall) and a phone may announce a
 * size that lies (`fileLength`). GET media answers the exact bytes, or 413 media_too_large / 504
 * media_download_timeout past `media.*` limits; with save_media on, media within the limits is kept and
 * media past them is not (one warning).
 */
describe('received WhatsApp media through the server, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp(
    { media: { ...DEFAULT_MEDIA_LIMITS, maxDownloadBytes: LIMIT, downloadIdleMs: IDLE_MS, downloadTimeoutMs: TIMEOUT_MS } }, {}, {}, { captureLogs: true },
  );
  const [small, large, stalled] = [randomBytes(20_000), randomBytes(LARGE), randomBytes(100_000)];
  const friend = '5511987659502';
  let instance: { key: string; id: string; number: string };

  before(async () => {
    ({ sim, t } = env);
    sim.simulator.createAccount({ number: friend, pushName: 'Maria Silva' });
    instance = await linked('5511987659501', 'wa-media');
  });

  async function linked(number: string, name: string) {
    sim.simulator.createAccount({ number, pushName: 'Loja' });
    const { api } = await env.linkByQr(number, name);
    return { key: api.key, id: (await api.call('getInstance')).instance.id as string, number };
  }

  /** The friend's phone sends `to` an image of `data` (announced as `fileLength` bytes when given), served as `serve` says; resolves with its id and host path once the instance has it. */
  async function received(to: typeof instance, data: Buffer, options: { fileLength?: number; serve?: MediaServing } = {}) {
    const { number } = to;
    const sent = await sim.simulator.sendMedia(friend, number, { kind: 'image', data, mimetype: 'image/jpeg', ...options });
    await t.waitFor(() => t.events.find((e) => e.type === 'message' && e.instance === to.id && e.message.id === sent.id), 20_000, 'the image');
    const got = sim.simulator.received(number).find((m) => m.id === sent.id)!;
    const path = String((got.message.imageMessage as { directPath: string }).directPath).split('?')[0]!;
    return { id: sent.id, path };
  }

  const downloads = (path: string) => sim.simulator.mediaRequests().filter((r) => r.path === path);

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

  it('a received image is listed in its chat; GET media answers its exact bytes and type, format=json its data URI', { timeout: 60_000 }, async () => {
    const { id } = await received(instance, small);
    const peer = `${friend}@s.whatsapp.net`;
    const listed = await t.client(instance.key).call('listChatMessages', { params: { jid: peer } });
    const record = listed.data.find((m) => m.key.id === id);
    assert.deepStrictEqual([record?.key, record?.provider], [{ remoteJid: peer, fromMe: false, id }, 'whatsapp']);

    const binary = await media(instance.key, id);
    assert.deepStrictEqual([binary.status, binary.headers.get('content-type'), binary.headers.get('content-length')], [200, 'image/jpeg', String(small.length)]);
    assert.ok(binary.raw.equals(small), 'the decrypted bytes');
    const json = await media(instance.key, id, 'json');
    assert.deepStrictEqual({ status: json.status, body: json.body }, { status: 200, body: { status: 200, data: dataUri('image/jpeg', small) } });
  });

  it('a declared fileLength over media.maxDownloadBytes: 413 media_too_large naming the size, the media host never asked', { timeout: 60_000 }, async () => {
    const { id, path } = await received(instance, large);
    assert.deepStrictEqual(await refused(instance.key, id, 413, 'media_too_large'), tooLarge(id, large.length));
    assert.deepStrictEqual(downloads(path), []);
  });

  it('a small fileLength that lies, the body large (declared or chunked): 413 media_too_large, the connection closed early', { timeout: 60_000 }, async () => {
    for (const serve of [{}, { chunked: true }]) {
      const { id, path } = await received(instance, large, { fileLength: 1000, serve });
      assert.deepStrictEqual(await refused(instance.key, id, 413, 'media_too_large'), tooLarge(id), JSON.stringify(serve));
      await t.waitFor(() => downloads(path).length > 0 && downloads(path).every((r) => r.closedEarly !== undefined), 5_000, 'the downloads closed');
      const seen = downloads(path);
      assert.ok(seen.every((r) => r.closedEarly === true && r.written < r.size / 2), `${JSON.stringify(serve)}: ${JSON.stringify(seen)}`);
    }
  });

  it('the Cloud API describes a received media over the limit, or whose host stalls, with its 131052 (media download error)', { timeout: 60_000 }, async () => {
    const over = (await received(instance, large)).id;
    const stalling = (await received(instance, stalled, { serve: { stallAfterBytes: 1024 } })).id;
    for (const [id, status, error] of [[over, 413, tooLarge(over, large.length)], [stalling, 504, idle(stalling)]] as const) {
      // Described, and downloaded at the url a description would give.
      for (const path of [`/${CLOUD_VERSION}/${id}`, `/${CLOUD_VERSION}/${instance.id}/media/${id}`]) {
        const res = await cloudRequest(t, instance.key, 'GET', path);
        assert.deepStrictEqual([res.status, res.body.error?.code, res.body.error?.message, res.body.error?.error_data.details], [status, 131052, '(#131052) Media download error', error.message], path);
      }
    }
  });

  it('a media host that stalls: 504 media_download_timeout within media.downloadIdleMs, not the whole time-out', { timeout: 60_000 }, async () => {
    const { id } = await received(instance, stalled, { serve: { stallAfterBytes: 1024 } });
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
      saving = await linked('5511987659503', 'wa-save-media');
      assert.equal((await t.client(saving.key).call('updateInstanceFlags', { query: { saveMedia: true } })).status, 200);
    });

    /** The JSON log lines of warn level about message `id` written since line `from`. */
    const warnings = (from: number, id: string) => t.logs.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l.message === id && l.level === 40);

    it('media within the limits is saved: GET media answers it with its file gone from the media host', { timeout: 60_000 }, async () => {
      const { id, path } = await received(saving, small);
      const copy = await t.waitFor(() => t.server.context.storage.media.get(saving.id, id), 5000, 'the saved media');
      assert.ok(copy.data.equals(small));
      sim.simulator.removeMedia(path);
      const binary = await media(saving.key, id);
      assert.deepStrictEqual([binary.status, binary.headers.get('content-type')], [200, 'image/jpeg']);
      assert.ok(binary.raw.equals(small));
    });

    for (const c of [
      { what: 'oversized', file: () => large, options: { fileLength: 1000, serve: { chunked: true } }, error: (id: string) => ({ status: 413, ...tooLarge(id) }) },
      { what: 'stalled', file: () => stalled, options: { serve: { stallAfterBytes: 1024 } }, error: (id: string) => ({ status: 504, ...idle(id) }) },
    ]) {
      it(`${c.what} media is not saved, the message is; one warning with the limit and no stack; GET media answers the same error`, { timeout: 60_000 }, async () => {
        const from = t.logs.length;
        const { id } = await received(saving, c.file(), c.options);
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
