import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:https';
import { describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { controlApi, refusal, useSimulator, waitFor } from './client.js';

/** GET of `url` over HTTPS, trusting the simulator's media certificate: its headers and the bytes that came before the end or `giveUpMs`. */
function download(url: string, ca: string, giveUpMs: number): Promise<{ status: number; length: string | undefined; body: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      const chunks: Buffer[] = [];
      const done = (ended: boolean) => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode!, length: res.headers['content-length'], body: Buffer.concat(chunks), ended });
      };
      const timer = setTimeout(() => done(false), giveUpMs);
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(true));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('media host faults: a size that lies, a file served chunked or stalling, a file taken off the host', () => {
  let sim: RunningSimulator;
  const call = controlApi(() => sim);
  useSimulator((started) => { sim = started; }, { media: true });

  it('serves each file as its send said, records every download, and removes a file', { timeout: 30_000 }, async () => {
    const [ana, beto] = ['5511987657601', '5511987657602'];
    for (const number of [ana, beto]) assert.equal((await call('POST', '/accounts', { number })).status, 201);
    const data = randomBytes(150_000);
    const send = async (extra: Record<string, unknown>) => {
      const sent = await call('POST', `/accounts/${ana}/media`, { to: beto, kind: 'image', data: data.toString('base64'), mimetype: 'image/jpeg', ...extra });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      const image = sim.simulator.received(beto).find((m) => m.id === sent.body.id)!.message.imageMessage as { url: string; fileLength: number };
      return image;
    };
    const plain = await send({});
    const lying = await send({ fileLength: 1000, serve: { chunked: true } });
    const stalling = await send({ serve: { stallAfterBytes: 1024 } });
    assert.equal(Number(plain.fileLength), data.length);
    assert.equal(Number(lying.fileLength), 1000, 'the size the message announces');

    const whole = await download(plain.url, sim.mediaCertificate, 5_000);
    assert.deepEqual([whole.status, whole.ended, whole.length, whole.body.length > data.length], [200, true, String(whole.body.length), true]);
    const chunked = await download(lying.url, sim.mediaCertificate, 5_000);
    assert.deepEqual([chunked.status, chunked.ended, chunked.length, chunked.body.length], [200, true, undefined, whole.body.length], 'the whole file, without Content-Length');
    const stalled = await download(stalling.url, sim.mediaCertificate, 500);
    assert.deepEqual([stalled.status, stalled.ended, stalled.body.length], [200, false, 1024]);

    const path = (url: string) => new URL(url).pathname;
    await waitFor(() => (sim.simulator.mediaRequests().find((r) => r.path === path(stalling.url))?.closedEarly) !== undefined, 'the stalled download to close');
    const requests = (await call('GET', '/media/requests')).body as Array<{ path: string; size: number; written: number; closedEarly?: boolean }>;
    assert.deepEqual(requests.map((r) => [r.path, r.written === r.size, r.closedEarly]), [
      [path(plain.url), true, false], [path(lying.url), true, false], [path(stalling.url), false, true],
    ]);
    assert.equal(requests[2]!.written, 1024);

    assert.equal((await call('DELETE', `/media/files?path=${encodeURIComponent(path(plain.url))}`)).status, 204);
    assert.equal((await download(plain.url, sim.mediaCertificate, 5_000)).status, 404);
    assert.equal(refusal(await call('DELETE', `/media/files?path=${encodeURIComponent(path(plain.url))}`)), 'media_not_found');
  });

  it('refuses bad faults with clear JSON errors, and nothing is sent', async () => {
    const [ana, beto] = ['5511987657611', '5511987657612'];
    for (const number of [ana, beto]) await call('POST', '/accounts', { number });
    const image = { to: beto, kind: 'image', data: 'AAAA', mimetype: 'image/jpeg' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ fileLength: -1 }, 'validation_failed:invalid_media body.fileLength'],
      [{ fileLength: 'big' }, 'validation_failed body.fileLength'],
      [{ serve: 'slow' }, 'validation_failed body.serve'],
      [{ serve: { chunked: 'yes' } }, 'validation_failed body.serve.chunked'],
      [{ serve: { stallAfterBytes: 1.5 } }, 'validation_failed body.serve.stallAfterBytes'],
      [{ serve: { stallAfter: 10 } }, 'validation_failed body.serve'],
    ];
    for (const [extra, code] of cases) {
      const res = await call('POST', `/accounts/${ana}/media`, { ...image, ...extra });
      assert.deepEqual([res.status, refusal(res)], [400, code], JSON.stringify(extra));
    }
    const missing = await call('DELETE', '/media/files');
    assert.deepEqual([missing.status, missing.body.error.code, missing.body.error.details.fields], [400, 'validation_failed', [{ field: 'query.path', message: missing.body.error.message }]]);
    assert.deepEqual((await call('GET', `/accounts/${ana}/messages/sent`)).body, []);
    await assert.rejects(sim.simulator.sendMedia(ana, beto, { kind: 'image', data: Buffer.from('x'), mimetype: 'image/jpeg', serve: { stallAfterBytes: -3 } }), /stallAfterBytes/);
  });
});
