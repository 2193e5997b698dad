import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { S3TestServer } from '@parley/media-s3/testing';
import { CLOUD_VERSION } from '../support/cloud-api.js';
import { dataUri, SAMPLES } from '../support/media-server.js';
import { MessagingPair } from '../support/messaging.js';

/**
 * Media in an S3-compatible bucket (`@parley/media-s3` against s3rver on loopback) through the real
 * server on SQLite: received media saved with `save_media` and sent media are objects in the bucket,
 * served by GET media; while the bucket is unreachable stored media answers a clear 503 and sends with
 * media are still made; once the bucket is back everything is served again.
 */
describe('media in an S3 bucket (@parley/media-s3)', () => {
  let s3: S3TestServer;
  let p: MessagingPair;

  before(async () => {
    s3 = await S3TestServer.start();
    p = await MessagingPair.start({
      storage: 'sqlite', extraPlugins: [{ package: '@parley/media-s3', options: { bucket: s3.bucket, endpoint: s3.endpoint, requestTimeoutMs: 2_000, maxAttempts: 1 } }],
    }, ['5511900000901', '5511900000902']);
    const bob = p.t.client(p.bob.key);
    assert.equal((await bob.call('updateInstanceFlags', { query: { saveMedia: true } })).status, 200);
  });
  after(async () => {
    await p?.stop();
    await s3?.stop();
  });

  const media = (key: string, messageId: string) => p.t.request('GET', `/${key}/message/${messageId}/media?format=json`);

  it('keeps sent and received media in the bucket and serves them from it', async () => {
    const { storage } = p.t.server.context;
    assert.equal((storage.media as { name?: string }).name, 's3');
    const sent = await p.sendVia('sendBase64Audio', { to: p.bob.number, base64: dataUri('audio/mpeg', SAMPLES.mp3) });
    await p.received(sent.key.id);
    const copy = await p.t.waitFor(() => storage.media.get(p.bob.id, sent.key.id), 5000, 'the receiver\'s copy in the bucket');
    assert.ok(copy!.data.equals(SAMPLES.mp3));
    assert.ok((await storage.media.get(p.alice.id, sent.key.id))!.data.equals(SAMPLES.mp3), 'the sender\'s copy is in the bucket too');
    for (const phone of [p.alice, p.bob]) {
      const answer = await media(phone.key, sent.key.id);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.data, dataUri('audio/mpeg', SAMPLES.mp3));
    }
  });

  it('a Cloud API upload is an object in the bucket; one refused after its file was stored (a bad type or product after the file) leaves none', async () => {
    const prefix = `parley/${p.alice.id}/`;
    const upload = async (fields: [string, string][]) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(SAMPLES.png)], { type: 'image/png' }), 'dot.png');
      for (const [name, value] of fields) form.append(name, value);
      const res = await fetch(`${p.t.url}/${CLOUD_VERSION}/${p.alice.id}/media`, { method: 'POST', headers: { authorization: `Bearer ${p.alice.key}` }, body: form });
      return { status: res.status, body: await res.json() as any };
    };
    const kept = await upload([['type', 'image/png'], ['messaging_product', 'whatsapp']]);
    assert.equal(kept.status, 200);
    const keys = await s3.keys(prefix);
    assert.ok(keys.includes(`${prefix}${kept.body.id}`), keys.join());
    for (const [fields, message] of [
      [[['type', 'not a type']], 'type must be the file\'s MIME type'],
      [[['messaging_product', 'instagram']], 'messaging_product must be whatsapp'],
    ] as const) {
      const refused = await upload(fields.map(([n, v]) => [n, v]));
      assert.equal(refused.status, 400);
      assert.match(refused.body.error.error_data.details, new RegExp(message));
    }
    assert.deepEqual(await s3.keys(prefix), keys, 'nothing of the refused uploads is left');
  });

  it('while the bucket is unreachable: stored media answers 503 naming the store, sends with media are still sent, nothing is lost', { timeout: 60_000 }, async () => {
    const before = await p.sendVia('sendBase64Audio', { to: p.bob.number, base64: dataUri('audio/mpeg', SAMPLES.mp3) });
    await p.received(before.key.id);
    await p.t.waitFor(() => p.t.server.context.storage.media.get(p.bob.id, before.key.id), 5000, 'the receiver\'s copy in the bucket');
    await s3.pause();
    let during: string;
    try {
      const answer = await media(p.bob.key, before.key.id);
      assert.equal(answer.status, 503);
      assert.equal(answer.body.error.code, 'service_unavailable');
      assert.match(answer.body.error.message, /^media store s3:\/\/parley-media\/parley\/ at http:\/\/127\.0\.0\.1:\d+ is unavailable: /);
      // The send is made and its record stored; only the sender's copy of the media could not be kept.
      during = (await p.sendVia('sendBase64Audio', { to: p.bob.number, base64: dataUri('audio/mpeg', SAMPLES.mp3) })).key.id;
      assert.equal((await p.t.request('GET', `/${p.alice.key}/message/${during}`)).status, 200);
    } finally {
      await s3.listen();
    }
    // The sandbox's phone keeps what it receives in the media store too: its packet waited in the inbox and is
    // handed again at the next inbox re-read (every inboxRecheckMs, 5 s) once the bucket is back.
    await p.t.waitFor(() => p.t.server.context.storage.messages.get(p.bob.id, during), 20_000, 'the message held during the outage');
    // Its copy is written to the bucket just after the record (s3rver, unlike S3, can show an object while it is written).
    await p.t.waitFor(async () => (await p.t.server.context.storage.media.get(p.bob.id, during))?.data.equals(SAMPLES.mp3) || null, 10_000, 'the copy in the bucket');
    for (const id of [before.key.id, during]) {
      const served = await media(p.bob.key, id);
      assert.equal(served.status, 200);
      assert.equal(served.body.data, dataUri('audio/mpeg', SAMPLES.mp3));
    }
  });
});

/**
 * `presignedGetSeconds`: GET media of a stored media answers 302 to a presigned address of the bucket,
 * which a plain HTTP client downloads without credentials; only callers with the instance's key get it.
 */
describe('media in an S3 bucket with presigned GETs (@parley/media-s3 presignedGetSeconds)', () => {
  let s3: S3TestServer;
  let p: MessagingPair;

  before(async () => {
    s3 = await S3TestServer.start();
    p = await MessagingPair.start({
      storage: 'sqlite',
      extraPlugins: [{ package: '@parley/media-s3', options: { bucket: s3.bucket, endpoint: s3.endpoint, requestTimeoutMs: 2_000, maxAttempts: 1, presignedGetSeconds: 300 } }],
    }, ['5511900000903', '5511900000904']);
  });
  after(async () => {
    await p?.stop();
    await s3?.stop();
  });

  const get = (key: string, messageId: string, query = '') => fetch(`${p.t.url}/${key}/message/${messageId}/media${query}`, { redirect: 'manual' });

  it('redirects GET media to the bucket, where a plain HTTP client downloads it; JSON and refused callers are answered as before', async () => {
    const sent = await p.sendVia('sendBase64Audio', { to: p.bob.number, base64: dataUri('audio/mpeg', SAMPLES.mp3) });
    const found = await get(p.alice.key, sent.key.id);
    assert.equal(found.status, 302);
    const location = found.headers.get('location')!;
    assert.ok(location.startsWith(`${s3.endpoint}/${s3.bucket}/parley/`) && /X-Amz-Signature=/.test(location) && /X-Amz-Expires=300&/.test(location), location);
    const object = await fetch(location);
    assert.equal(object.status, 200);
    assert.equal(object.headers.get('content-type'), 'audio/mpeg');
    assert.ok(Buffer.from(await object.arrayBuffer()).equals(SAMPLES.mp3));
    // The format=json answer carries the bytes itself.
    assert.equal((await p.t.request('GET', `/${p.alice.key}/message/${sent.key.id}/media?format=json`)).body.data, dataUri('audio/mpeg', SAMPLES.mp3));
    // No address for a caller without the key, nor for a message without media.
    assert.equal((await get('madeUpKeyAAAAAAAAAAAAAAAAAAAAAAAAAAA', sent.key.id)).status, 404);
    const text = await p.sendVia('sendText', { to: p.bob.number, text: 'no media here' });
    const none = await get(p.alice.key, text.key.id);
    assert.deepEqual([none.status, ((await none.json()) as { error: { code: string } }).error.code], [404, 'media_not_found']);
  });

  it('answers 503 naming the store while the bucket is unreachable, the message still stored', { timeout: 30_000 }, async () => {
    const sent = await p.sendVia('sendBase64Audio', { to: p.bob.number, base64: dataUri('audio/mpeg', SAMPLES.mp3) });
    await s3.pause();
    try {
      const answer = await get(p.alice.key, sent.key.id);
      assert.equal(answer.status, 503);
      assert.match(((await answer.json()) as { error: { message: string } }).error.message, /^media store s3:\/\/parley-media\/parley\/ at http:\/\/127\.0\.0\.1:\d+ is unavailable: /);
      assert.equal((await p.t.request('GET', `/${p.alice.key}/message/${sent.key.id}`)).status, 200);
    } finally {
      await s3.listen();
    }
    assert.equal((await get(p.alice.key, sent.key.id)).status, 302);
  });
});
