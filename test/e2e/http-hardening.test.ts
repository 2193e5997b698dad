import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { expectError } from '../support/api-assertions.js';
import { phone, type Phone } from '../support/conversation.js';
import { dataUri, SAMPLES, sampleBytes } from '../support/media-server.js';
import { RawUpload, type RawAnswer } from '../support/raw-upload.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Sends `method path` announcing a body of `declared` bytes but writes only `first`, then waits
 * (at most `waitMs`) for an answer and for the server to close the connection. The client never
 * sends the rest: an answer proves the server did not need the body, a close that it will not read it.
 */
function partialUpload(url: string, method: string, path: string, headers: Record<string, string>, declared: number, first: Buffer, waitMs = 3000): Promise<RawAnswer> {
  const upload = RawUpload.open(url, method, path, { 'Content-Type': 'application/json', 'Content-Length': String(declared), ...headers });
  upload.send(first);
  return upload.answer(waitMs);
}

const MiB = 1024 * 1024;
/** The start of a base64 image send: what a client streaming a 32 MiB upload has sent after 64 KiB. */
const uploadStart = Buffer.from(`{"to":"5511960000002","base64":"data:image/png;base64,${'A'.repeat(64 * 1024)}`);

describe('bodies are read after authentication, with the route\'s limit', () => {
  let t: TestServer;
  let alice: Phone;

  before(async () => {
    t = await startTestServer({ config: { bodyLimitBytes: 4096, mediaBodyLimitBytes: 64 * 1024 } });
    alice = await phone(t, 'alice', '5511960000001');
  });
  after(async () => {
    await t.stop();
  });

  it('a made-up key or a bad admin token with a 32 MiB body is answered at once, and the upload is not read', async () => {
    const started = Date.now();
    const made = await partialUpload(t.url, 'POST', '/madeUpKeyAAAAAAAAAAAAAAAAAAAAAAAAA/message/base64/image', {}, 32 * MiB, uploadStart);
    assert.equal(made.status, 404);
    assert.equal(made.body.error.code, 'instance_not_found');
    assert.equal(made.headers.connection, 'close');
    assert.ok(made.closedByServer, 'the server closes the connection instead of reading 32 MiB');
    const admin = await partialUpload(t.url, 'POST', '/admin/instances', { Authorization: 'Bearer wrong-token-0123456789' }, 32 * MiB, uploadStart);
    assert.equal(admin.status, 401);
    assert.equal(admin.body.error.code, 'unauthorized');
    assert.ok(admin.closedByServer);
    const route = await partialUpload(t.url, 'POST', '/madeUpKeyAAAAAAAAAAAAAAAAAAAAAAAAA/no/such/route', {}, 32 * MiB, uploadStart);
    assert.equal(route.status, 404);
    assert.equal(route.body.error.code, 'route_not_found');
    assert.ok(route.closedByServer);
    // Three answers to uploads that were never finished, well within the wait of one.
    assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
  });

  it('a public route under a key (the sandbox\'s) refuses a made-up key before reading a body within its limit', async () => {
    const body = Buffer.from(`{"code":"${'1'.repeat(100)}`);
    const made = await partialUpload(t.url, 'POST', '/sandbox/madeUpKeyAAAAAAAAAAAAAAAAAAAAAAAAA/scan', {}, 2048, body, 1500);
    assert.equal(made.status, 404, 'answered without waiting for the rest of the body');
    assert.equal(made.body.error.code, 'instance_not_found');
    // With the key, the same unfinished body is awaited.
    const real = await partialUpload(t.url, 'POST', `/sandbox/${alice.key}/scan`, {}, 2048, body, 400);
    assert.equal(real.status, undefined);
  });

  it('with a valid key the same unfinished upload is awaited (the body is read only after authenticating)', async () => {
    const res = await partialUpload(t.url, 'POST', `/${alice.key}/message/base64/image`, {}, 16 * 1024, uploadStart.subarray(0, 8 * 1024), 400);
    assert.equal(res.status, undefined, 'no answer while the announced body is still coming');
    assert.equal(res.closedByServer, false);
  });

  it('a declared length over the route\'s limit answers 413 without reading the body; a large upload is cut off', async () => {
    // A small rest (up to 64 KiB) is discarded when it comes, keeping the connection for the next request.
    const text = await partialUpload(t.url, 'POST', `/${alice.key}/message/text`, {}, 5000, Buffer.from('{"to":"5511960000002","text":"'), 1000);
    assert.equal(text.status, 413);
    assert.deepEqual(text.body, { status: 413, error: { code: 'payload_too_large', message: 'request body exceeds the limit of 4096 bytes', details: { limit: 4096 } } });
    assert.equal(text.headers.connection, 'keep-alive');
    assert.equal(text.closedByServer, false);
    const media = await partialUpload(t.url, 'POST', `/${alice.key}/message/base64/image`, {}, 32 * MiB, uploadStart);
    assert.equal(media.status, 413);
    assert.equal(media.body.error.message, 'request body exceeds the limit of 65536 bytes');
    assert.ok(media.closedByServer);
  });

  it('media routes take bodies over the JSON limit up to the media limit; other routes refuse them', async () => {
    const image = dataUri('image/png', sampleBytes(SAMPLES.png.subarray(0, 8), 20_000));
    const sent = await t.request('POST', `/${alice.key}/message/base64/image`, { to: '5511960000002', base64: image });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.ok(sent.body.data.message.imageMessage);
    const profile = await t.request('PUT', `/${alice.key}/instance/profile/picture`, { url: image });
    assert.notEqual(profile.status, 413, JSON.stringify(profile.body));
    expectError(await t.request('POST', `/${alice.key}/message/text`, { to: '5511960000002', text: 'x'.repeat(5000) }), 413, 'payload_too_large');
    expectError(await t.request('POST', `/${alice.key}/message/base64/image`, { to: '5511960000002', base64: `${image}${'A'.repeat(64 * 1024)}` }),
      413, 'payload_too_large', 'request body exceeds the limit of 65536 bytes');
  });

  it('the express.json fallback (compressed, chunked) applies the same limits, after inflating', async () => {
    const big = JSON.stringify({ to: '5511960000002', text: 'y'.repeat(6000) });
    const zipped = gzipSync(big);
    assert.ok(zipped.length < 4096, 'compressed, the body is under the limit');
    expectError(await t.request('POST', `/${alice.key}/message/text`, zipped, { 'content-type': 'application/json', 'content-encoding': 'gzip' }),
      413, 'payload_too_large', 'request body exceeds the limit of 4096 bytes');
    // A chunked upload (no Content-Length): fetch streams a ReadableStream body that way.
    const stream = new Blob([big]).stream();
    const chunked = await fetch(`${t.url}/${alice.key}/message/text`, {
      method: 'POST', body: stream, headers: { 'content-type': 'application/json' }, duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 413);
    assert.equal(((await chunked.json()) as any).error.code, 'payload_too_large');
    // The same route still takes a small compressed body.
    const small = gzipSync(JSON.stringify({ to: '5511960000002', text: 'small and zipped' }));
    assert.equal((await t.request('POST', `/${alice.key}/message/text`, small, { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status, 200);
  });
});

describe('a driver route declares its own body limit', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/channel-instagram', options: { graphBaseUrl: 'http://127.0.0.1:9', profileLookup: false } }],
    });
  });
  after(async () => {
    await t.stop();
  });

  it('Meta notifications (documented up to 3 MB) are read up to 4 MiB, past the 1 MiB default', async () => {
    const notification = (bytes: number) => JSON.stringify({ object: 'instagram', entry: [], padding: 'p'.repeat(bytes) });
    const headers = { 'x-hub-signature-256': 'sha256=00' };
    // Read and parsed by the channel: no entry concerns a linked account, so nothing is emitted.
    const big = await t.request('POST', '/instagram/webhook', notification(3 * MiB), headers);
    assert.deepEqual([big.status, big.body], [200, { received: 0 }]);
    expectError(await t.request('POST', '/instagram/webhook', notification(4 * MiB), headers), 413, 'payload_too_large',
      `request body exceeds the limit of ${4 * MiB} bytes`);
    assert.ok(t.server.openapi.paths && (t.server.openapi.paths as any)['/instagram/webhook'].post.responses['413']);
  });
});

describe('answers that carry keys or secrets are not stored by caches', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.stop();
  });

  it('Cache-Control: no-store on admin and instance answers; public answers are left alone', async () => {
    const created = await t.admin('POST', '/admin/instances', { channel: 'sandbox', name: 'cache' });
    assert.equal(created.status, 200);
    assert.ok(created.body.data.key && created.body.data.webhookSecret);
    const key = created.body.data.key as string;
    for (const res of [created, await t.admin('GET', '/admin/instances'), await t.admin('GET', `/admin/instances/${key}`),
      await t.request('GET', `/${key}/instance`), await t.request('POST', `/sandbox/${key}/scan`)]) {
      assert.equal(res.headers.get('cache-control'), 'no-store', JSON.stringify(res.body));
    }
    assert.equal((await t.request('GET', '/healthz')).headers.get('cache-control'), null);
  });

  it('GET / points to the documentation', async () => {
    const res = await t.client().call('root');
    assert.deepEqual(res, {
      status: 200, data: { name: 'Parley messaging gateway', version: t.server.context.version, docs: '/docs', openapi: '/openapi.json', dashboard: '/dashboard/' },
    });
    assert.equal((await t.request('GET', res.data.docs)).status, 200);
  });
});
