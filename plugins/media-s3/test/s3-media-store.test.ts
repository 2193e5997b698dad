import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { ServiceUnavailableError, silentLogger } from '@parley/core';
import { FakeClock, registerPlugin, scanAll } from '@parley/testkit';
import plugin, { S3MediaStore, resolveS3MediaOptions } from '../src/index.js';
import { S3TestServer } from '../src/testing/index.js';

const DAY = 24 * 60 * 60 * 1000;
const MiB = 1024 * 1024;

/** `data` in 64 KiB chunks, as a request body arrives. */
function* chunks(data: Buffer): Generator<Buffer> {
  for (let at = 0; at < data.length; at += 64 * 1024) yield data.subarray(at, at + 64 * 1024);
}

describe('@parley/media-s3 against an S3 protocol server (s3rver on loopback)', () => {
  let s3: S3TestServer;
  let store: S3MediaStore;
  const open = (options: { endpoint?: string; bucket?: string; retentionDays?: number; requestTimeoutMs?: number; prefix?: string; presignedGetSeconds?: number }, clock?: FakeClock) =>
    new S3MediaStore(resolveS3MediaOptions({ bucket: s3.bucket, endpoint: s3.endpoint, prefix: 'test/', ...options }), silentLogger, clock);

  before(async () => {
    s3 = await S3TestServer.start();
    store = open({});
    await store.init();
  });
  after(async () => {
    await store.close();
    await s3.stop();
  });

  it('keeps bytes, type and file name per instance and message; answers null for what it does not have', async () => {
    const data = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 256));
    await store.put('ins_a', '3EB0/odd id?', { data, mimetype: 'image/png', fileName: 'relatório de março.png' });
    await store.put('ins_b', '3EB0/odd id?', { data: Buffer.from('other'), mimetype: 'text/plain' });
    const got = await store.get('ins_a', '3EB0/odd id?');
    assert.ok(got!.data.equals(data));
    assert.equal(got!.mimetype, 'image/png');
    assert.equal(got!.fileName, 'relatório de março.png');
    assert.deepEqual(await store.get('ins_b', '3EB0/odd id?'), { data: Buffer.from('other'), mimetype: 'text/plain' });
    assert.equal(await store.get('ins_a', 'missing'), null);
    assert.equal(store.location, `s3://${s3.bucket}/test/ at ${s3.endpoint}`);
  });

  it('streams an object out (its size and description before its bytes) and in (past one 5 MiB part), holding neither whole', async () => {
    const data = randomBytes(12 * MiB + 123);
    const size = await store.putStream('ins_s', 'big', Readable.from(chunks(data)), { mimetype: 'video/mp4', fileName: 'clip.mp4' });
    assert.equal(size, data.length);
    const object = await store.open('ins_s', 'big');
    assert.deepEqual({ ...object, body: undefined }, { size: data.length, mimetype: 'video/mp4', fileName: 'clip.mp4', body: undefined });
    const read: Buffer[] = [];
    for await (const chunk of object!.body) read.push(chunk as Buffer);
    // The SDK hands the body over as it arrives: many chunks, none of them the whole object.
    assert.ok(read.length > 10 && read.every((c) => c.length < MiB), `${read.length} chunks`);
    assert.ok(Buffer.concat(read).equals(data));
    assert.equal(await store.open('ins_s', 'missing'), null);
  });

  it('keeps nothing of a streamed write whose body fails, and rejects with the body\'s own error', async () => {
    const failing = new PassThrough();
    const written = store.putStream('ins_s', 'broken', failing, { mimetype: 'application/octet-stream' });
    failing.write(randomBytes(6 * MiB));
    const cause = new Error('the client went away');
    setTimeout(() => failing.destroy(cause), 50);
    await assert.rejects(written, (err) => err === cause);
    assert.equal(await store.get('ins_s', 'broken'), null);
  });

  it('hands out presigned GETs only when configured, for stored objects, downloadable by any HTTP client', async () => {
    await store.put('ins_p', 'doc', { data: Buffer.from('presigned bytes'), mimetype: 'application/pdf', fileName: 'report "final".pdf' });
    assert.equal(await store.presignGet('ins_p', 'doc'), null, 'off by default');
    const presigning = open({ presignedGetSeconds: 60 });
    assert.equal(await presigning.presignGet('ins_p', 'missing'), null);
    const url = await presigning.presignGet('ins_p', 'doc');
    assert.match(url!, /X-Amz-Expires=60&/);
    const res = await fetch(url!);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    // As GET media answers it (quotes as _).
    assert.equal(res.headers.get('content-disposition'), 'inline; filename="report _final_.pdf"');
    assert.equal(await res.text(), 'presigned bytes');
    await presigning.close();
  });

  it('deletes one blob (answering whether it existed) and clears one instance only', async () => {
    await store.put('ins_c', 'one', { data: Buffer.from('1'), mimetype: 'text/plain' });
    await store.put('ins_c', 'two', { data: Buffer.from('2'), mimetype: 'text/plain' });
    await store.put('ins_cc', 'one', { data: Buffer.from('kept'), mimetype: 'text/plain' });
    assert.equal(await store.delete('ins_c', 'one'), true);
    assert.equal(await store.delete('ins_c', 'one'), false);
    assert.equal(await store.get('ins_c', 'one'), null);
    await store.clear('ins_c');
    assert.equal(await store.get('ins_c', 'two'), null);
    // An instance whose id starts with another's is not the other.
    assert.equal((await store.get('ins_cc', 'one'))!.data.toString(), 'kept');
  });

  it('lists the ids of one instance\'s objects in ListObjectsV2 pages (parley storage copy), without their bytes', async () => {
    const ids = ['up_b', 'ABC', 'msg1', 'msg10', 'msg2', '3EB0/odd id?'];
    for (const id of ids) await store.put('ins_l', id, { data: Buffer.from(id), mimetype: 'text/plain' });
    await store.put('ins_ll', 'msg3', { data: Buffer.from('another instance'), mimetype: 'text/plain' });
    // An object under the instance's prefix that Parley did not write (s3rver takes unsigned requests).
    assert.equal((await fetch(`${s3.endpoint}/${s3.bucket}/test/ins_l/nested/foreign`, { method: 'PUT', body: 'x' })).status, 200);
    // The bucket's order is the encoded ids' ('3EB0%2Fodd%20id%3F' first).
    const expected = ['3EB0/odd id?', 'ABC', 'msg1', 'msg10', 'msg2', 'up_b'];
    for (const limit of [1, 2, 6, 50]) assert.deepEqual(await scanAll((request) => store.scanIds('ins_l', request), limit), expected, `pages of ${limit}`);
    await store.delete('ins_l', 'msg10');
    assert.deepEqual(await scanAll((request) => store.scanIds('ins_l', request), 2), expected.filter((id) => id !== 'msg10'));
    assert.deepEqual(await store.scanIds('ins_none', { limit: 10 }), { items: [] });
  });

  it('pages past S3\'s 1,000 keys a listing answers, whatever limit is asked', { timeout: 120_000 }, async () => {
    const ids = Array.from({ length: 1_003 }, (_, i) => `M${String(i).padStart(5, '0')}`);
    for (let at = 0; at < ids.length; at += 50) {
      await Promise.all(ids.slice(at, at + 50).map((id) => store.put('ins_many', id, { data: Buffer.from('x'), mimetype: 'text/plain' })));
    }
    const pages: number[] = [];
    assert.deepEqual(await scanAll((request) => store.scanIds('ins_many', request), 5_000, pages), ids);
    assert.deepEqual(pages, [1_000, 3]);
    await store.clear('ins_many');
  });

  it('sweeps media older than retentionDays by the store\'s time, and nothing newer', async () => {
    const clock = new FakeClock(Date.now());
    const kept = open({ retentionDays: 30, prefix: 'retention/' }, clock);
    await kept.put('ins_r', 'old', { data: Buffer.from('old'), mimetype: 'text/plain' });
    assert.equal(await kept.sweep(), 0);
    assert.ok(await kept.get('ins_r', 'old'));
    clock.advance(31 * DAY);
    assert.equal(await kept.sweep(), 1);
    assert.equal(await kept.get('ins_r', 'old'), null);
    await kept.close();
  });

  it('answers 503 naming the store when it cannot be reached, and works again once it is back', { timeout: 30_000 }, async () => {
    const quick = open({ requestTimeoutMs: 2_000, prefix: 'outage/' });
    await quick.put('ins_o', 'before', { data: Buffer.from('before'), mimetype: 'text/plain' });
    await s3.pause();
    try {
      await assert.rejects(quick.get('ins_o', 'before'), (err: unknown) => {
        assert.ok(err instanceof ServiceUnavailableError);
        assert.match(err.message, /^media store s3:\/\/parley-media\/outage\/ at http:\/\/127\.0\.0\.1:\d+ is unavailable: /);
        return true;
      });
      await assert.rejects(quick.put('ins_o', 'during', { data: Buffer.from('x'), mimetype: 'text/plain' }), ServiceUnavailableError);
      // Start-up with the store away is logged, not fatal: media calls answer 503 until it is back.
      await open({ requestTimeoutMs: 2_000 }).init();
    } finally {
      await s3.listen();
    }
    assert.equal((await quick.get('ins_o', 'before'))!.data.toString(), 'before');
    await quick.close();
  });

  it('refuses to start on a bucket that does not exist', async () => {
    const missing = open({ bucket: 'no-such-bucket' });
    await assert.rejects(missing.init(), /media store s3:\/\/no-such-bucket\/test\/ at http:\/\/127\.0\.0\.1:\d+: the bucket does not exist/);
    await missing.close();
  });

  it('registers as the media store of a kind "media" plugin', async () => {
    const registered = await registerPlugin(plugin, { bucket: s3.bucket, endpoint: s3.endpoint });
    assert.ok(registered.media instanceof S3MediaStore);
    await registered.media!.close!();
    assert.equal(plugin.kind, 'media');
    assert.deepEqual(plugin.provides, { media: true });
  });
});
