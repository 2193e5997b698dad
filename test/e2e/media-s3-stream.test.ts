import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '@parley/core';
import { resolveS3MediaOptions, S3MediaStore } from '@parley/media-s3';
import { S3TestServer } from '@parley/media-s3/testing';
import { eventually, TcpProxy } from '@parley/testkit';
import { CLOUD_VERSION } from '../support/cloud-api.js';
import { peakRss, resetPeakRss } from '../support/process-memory.js';
import { ServerChild } from '../support/server-child.js';

const MiB = 1024 * 1024;
/** The large media of these tests: far more than the memory a streamed answer may cost. */
const SIZE = 96 * MiB;
/**
 * What serving or taking in {@link SIZE} bytes may add to the server's peak RSS: three quarters of
 * them. Held whole they cost at least all of them (twice, as the code before streaming held them);
 * streamed, what grows is the garbage of the chunks that passed until the GC takes it (20-50 MiB
 * measured here, whatever the size).
 */
const GROWTH_BOUND = (SIZE * 3) / 4;

/** `size` bytes of a 1 MiB random block repeated, yielded 64 KiB at a time, and their SHA-256 once yielded. */
function largeBody(size: number): { chunks: () => Generator<Buffer>; sha256: string } {
  const block = randomBytes(MiB);
  const hash = createHash('sha256');
  for (let at = 0; at < size; at += MiB) hash.update(block.subarray(0, Math.min(MiB, size - at)));
  return {
    sha256: hash.digest('hex'),
    *chunks() {
      for (let at = 0; at < size; at += 64 * 1024) yield block.subarray(at % MiB, (at % MiB) + Math.min(64 * 1024, size - at));
    },
  };
}

/** Reads a response body to its end: its length and SHA-256. */
async function digest(body: ReadableStream<Uint8Array>): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of body) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/**
 * Media in an S3 bucket (`@parley/media-s3` against s3rver, through a TCP proxy the test cuts) served
 * and taken in by a real server process: a 96 MiB media goes through GET media and through the Cloud
 * API's upload while the process's peak RSS (from /proc) grows by far less than the media; a bucket
 * that goes away in the middle of a download closes that connection short of its Content-Length.
 */
describe('media in an S3 bucket, streamed through a server process', { skip: !existsSync('/proc/self/clear_refs') && 'needs /proc (Linux)', timeout: 120_000 }, () => {
  let s3: S3TestServer;
  let proxy: TcpProxy;
  let server: ServerChild;
  let dataDir: string;
  let bucket: S3MediaStore;
  let alice: { id: string; key: string };
  let messageId: string;
  let smallId: string;
  const body = largeBody(SIZE);
  const media = (key: string, id: string) => fetch(`${server.url}/${key}/message/${encodeURIComponent(id)}/media`);

  before(async () => {
    s3 = await S3TestServer.start();
    proxy = new TcpProxy('127.0.0.1', Number(new URL(s3.endpoint).port));
    await proxy.start();
    dataDir = mkdtempSync(join(tmpdir(), 'parley-media-s3-stream-'));
    server = await ServerChild.start(dataDir, { mediaBodyLimitBytes: 128 * MiB }, {
      nodeFlags: ['--max-semi-space-size=1'],
      // s3rver takes seconds to assemble 96 MiB of parts before it answers: the bound leaves it the time (an outage here refuses connections at once).
      plugins: [{ package: '@parley/media-s3', options: { bucket: s3.bucket, endpoint: `http://127.0.0.1:${proxy.port}`, requestTimeoutMs: 15_000, maxAttempts: 1 } }],
    });
    alice = await server.connectedSandbox({ name: 'alice', options: { number: '5511900000951' } });
    const send = async (text: string): Promise<string> => {
      const sent = await server.request('POST', `/${alice.key}/message/text`, { to: '5511900000952', text });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      return sent.body.data.key.id;
    };
    [messageId, smallId] = [await send('the large media is filed under this message'), await send('and a small one under this one')];
    // The server's copies of messages' media, as it keeps them: written straight to the bucket.
    bucket = new S3MediaStore(resolveS3MediaOptions({ bucket: s3.bucket, endpoint: s3.endpoint }), silentLogger);
    await bucket.putStream(alice.id, messageId, Readable.from(body.chunks()), { mimetype: 'video/mp4', fileName: 'clip.mp4' });
    await bucket.put(alice.id, smallId, { data: randomBytes(2 * MiB), mimetype: 'image/png' });
    // The first media served loads the code of that path and sizes the heap for it: a small one does,
    // so that the measures below see what a large one costs beyond that.
    assert.equal((await digest((await media(alice.key, smallId)).body!)).size, 2 * MiB);
  });
  after(async () => {
    await bucket?.close();
    await server?.kill('SIGTERM');
    await proxy?.cut();
    await s3?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('GET media streams a 96 MiB object from the bucket with its headers; the server\'s peak RSS grows by less than three quarters of it', async () => {
    const pid = server.child.pid!;
    const before = resetPeakRss(pid);
    const res = await media(alice.key, messageId);
    assert.equal(res.status, 200);
    assert.deepEqual(
      [res.headers.get('content-type'), res.headers.get('content-length'), res.headers.get('content-disposition')],
      ['video/mp4', String(SIZE), 'inline; filename="clip.mp4"'],
    );
    assert.deepEqual(await digest(res.body!), { size: SIZE, sha256: body.sha256 });
    const growth = peakRss(pid) - before;
    assert.ok(growth < GROWTH_BOUND, `peak RSS grew by ${Math.round(growth / MiB)} MiB serving ${SIZE / MiB} MiB`);
  });

  it('the Cloud API upload streams a 96 MiB file to the bucket (its type after the file); the peak RSS grows by less than three quarters of it', async () => {
    const pid = server.child.pid!;
    const before = resetPeakRss(pid);
    const boundary = 'parleyStreamBoundary';
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${server.url}/${CLOUD_VERSION}/${alice.id}/media`, {
        method: 'POST', headers: { authorization: `Bearer ${alice.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      const parts = function* () {
        yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="messaging_product"\r\n\r\nwhatsapp\r\n`);
        yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\nContent-Type: application/octet-stream\r\n\r\n`);
        yield* body.chunks();
        yield Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nvideo/mp4\r\n--${boundary}--\r\n`);
      };
      pipeline(Readable.from(parts()), req).catch(reject);
    });
    assert.equal(answer.status, 200, answer.text);
    const growth = peakRss(pid) - before;
    assert.ok(growth < GROWTH_BOUND, `peak RSS grew by ${Math.round(growth / MiB)} MiB taking in ${SIZE / MiB} MiB`);
    const { id } = JSON.parse(answer.text) as { id: string };
    const described = await fetch(`${server.url}/${CLOUD_VERSION}/${id}`, { headers: { authorization: `Bearer ${alice.key}` } });
    assert.deepEqual(
      (({ mime_type, file_size, sha256 }) => ({ mime_type, file_size, sha256 }))(await described.json() as Record<string, unknown>),
      { mime_type: 'video/mp4', file_size: SIZE, sha256: body.sha256 },
    );
    const object = await bucket.open(alice.id, id);
    assert.equal(object!.size, SIZE);
    object!.body.destroy();
    const downloaded = await fetch(`${server.url}/${CLOUD_VERSION}/${alice.id}/media/${id}`, { headers: { authorization: `Bearer ${alice.key}` } });
    assert.equal(downloaded.headers.get('content-type'), 'video/mp4', 'the upload\'s type, which came after its file');
    assert.deepEqual(await digest(downloaded.body!), { size: SIZE, sha256: body.sha256 });
  });

  it('a client that leaves in the middle of a download is not logged as a store failure, and the server serves on', async () => {
    const leaving = new AbortController();
    const res = await fetch(`${server.url}/${alice.key}/message/${encodeURIComponent(messageId)}/media`, { signal: leaving.signal });
    await res.body!.getReader().read();
    leaving.abort();
    // The server serves on: the next download is whole.
    const next = await media(alice.key, messageId);
    assert.deepEqual(await digest(next.body!), { size: SIZE, sha256: body.sha256 });
    assert.doesNotMatch(server.stderr.join(''), /streamed answer failed mid-way/);
  });

  it('a bucket cut in the middle of a download closes it short and is logged; then GET media answers 503, uploads 503, the message is kept; once back it is served whole', async () => {
    const res = await media(alice.key, messageId);
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let received = (await reader.read()).value!.length;
    await proxy.cut();
    await assert.rejects(async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) received += chunk.value.length;
    }, 'the download is cut, not ended as if complete');
    assert.ok(received < SIZE, `${received} of ${SIZE} bytes`);
    assert.ok(await eventually(async () => server.stderr.join('').includes('streamed answer failed mid-way; connection closed')), 'the cut is logged');

    const during = await media(alice.key, messageId);
    assert.equal(during.status, 503);
    const error = (await during.json() as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'service_unavailable');
    assert.match(error.message, /^media store s3:\/\/parley-media\/parley\/ at http:\/\/127\.0\.0\.1:\d+ is unavailable: /);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(randomBytes(1024))], { type: 'image/png' }), 'dot.png');
    const upload = await fetch(`${server.url}/${CLOUD_VERSION}/${alice.id}/media`, { method: 'POST', headers: { authorization: `Bearer ${alice.key}` }, body: form });
    assert.equal(upload.status, 503);
    assert.equal((await server.request('GET', `/${alice.key}/message/${messageId}`)).status, 200);

    await proxy.start();
    const back = await media(alice.key, messageId);
    assert.equal(back.status, 200);
    assert.deepEqual(await digest(back.body!), { size: SIZE, sha256: body.sha256 });
  });
});
