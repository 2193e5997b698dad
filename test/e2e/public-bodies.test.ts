import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dataUri, SAMPLES, sampleBytes } from '../support/media-server.js';
import { RawUpload, type RawAnswer } from '../support/raw-upload.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Small bounds, so that a test sees them: 1.5 s to receive a public body, and the smallest budget the
 * server accepts beside Meta's webhooks (their 4 MiB body limit) held at once.
 */
const TIMEOUT_MS = 1500;
const BUDGET = 4 * 1024 * 1024;
/** Three bodies of this size fit the budget, a fourth does not. */
const HELD = 1_300_000;
/** A signature header Meta never made: nobody links the accounts named, so nothing can check it. */
const FORGED = `sha256=${'0'.repeat(64)}`;

/** An Instagram notification naming an unlinked account, padded to `bytes` (a valid JSON body). */
function notification(bytes: number): Buffer {
  const bare = JSON.stringify({ object: 'instagram', entry: [{ id: '17841400000000001', time: 1718000000, messaging: [] }], pad: '' });
  return Buffer.from(bare.replace('"pad":""', `"pad":"${'x'.repeat(bytes - bare.length)}"`));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens `POST /instagram/webhook` announcing `declared` bytes (chunked when undefined) and sends `first` of them. */
function webhookUpload(t: TestServer, declared: number | undefined, first: Buffer): RawUpload {
  const upload = RawUpload.open(t.url, 'POST', '/instagram/webhook', {
    'Content-Type': 'application/json', 'X-Hub-Signature-256': FORGED,
    ...(declared === undefined ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': String(declared) }),
  });
  upload.send(first);
  return upload;
}

/** One chunk of a chunked body. */
const chunk = (bytes: Buffer): Buffer => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);

/** The answer a refused or timed-out public body gets, reduced to what the tests compare. */
const outcome = (a: RawAnswer) => ({ status: a.status, code: a.body?.error?.code, connection: a.headers.connection, retryAfter: a.headers['retry-after'], closed: a.closedByServer });

/**
 * What a caller without credentials can make the server hold while it receives a body: Meta's
 * webhooks are open to anyone, and their signature is checkable only once the whole body is in. So
 * such a body must arrive within `publicBodies.timeoutMs`, and all of them together hold at most
 * `publicBodies.maxBufferedBytes`; bodies under a key are not bound by either.
 */
describe('bodies read before their caller is authenticated', () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' },
        { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
        { package: '@parley/webhook-native' },
        { package: '@parley/channel-instagram', options: { profileLookup: false } },
      ],
      config: { publicBodies: { timeoutMs: TIMEOUT_MS, maxBufferedBytes: BUDGET } },
      captureLogs: true,
    });
  });
  after(async () => {
    await t.stop();
  });

  it('a webhook body that stalls is answered 408 within the limit and its connection closed', async () => {
    const body = notification(1000);
    const answer = await webhookUpload(t, body.length, body.subarray(0, 100)).answer(TIMEOUT_MS + 3000);
    assert.deepEqual(outcome(answer), { status: 408, code: 'request_timeout', connection: 'close', retryAfter: undefined, closed: true });
    assert.ok(answer.ms >= TIMEOUT_MS - 100 && answer.ms < TIMEOUT_MS + 1500, `answered after ${answer.ms} ms`);
  });

  it('bodies that fill the budget make the next one 503 at once, unread; once they time out the budget is free again', async () => {
    const body = notification(HELD);
    const held = Array.from({ length: 3 }, () => webhookUpload(t, body.length, body.subarray(0, 10)));
    await sleep(300);
    const refused = webhookUpload(t, body.length, body.subarray(0, 10));
    const answer = await refused.answer(TIMEOUT_MS + 3000);
    assert.deepEqual(outcome(answer), { status: 503, code: 'server_busy', connection: 'close', retryAfter: '2', closed: true });
    assert.ok(answer.ms < 1000, `refused after ${answer.ms} ms, before any body timed out`);
    assert.ok(held.every((h) => !h.answered), 'the bodies that fit are still being received');

    const timedOut = await Promise.all(held.map((h) => h.answer(TIMEOUT_MS + 3000)));
    assert.deepEqual(timedOut.map((a) => a.status), [408, 408, 408]);
    // All of the budget is free again: three bodies that fill it are read, and a fourth whole body after them.
    const whole = await Promise.all(Array.from({ length: 4 }, async (_, i) => {
      await sleep(i === 3 ? 300 : 0);
      const upload = webhookUpload(t, body.length, body);
      return (await upload.answer(2000)).status;
    }));
    assert.deepEqual(whole, [200, 200, 200, 200]);
  });

  it('a chunked body whose bytes pass the budget while arriving is refused 503 and closed, and gives its bytes back', async () => {
    const upload = webhookUpload(t, undefined, Buffer.alloc(0));
    const piece = Buffer.alloc(1024 * 1024, 0x20);
    for (let i = 0; i < 5; i++) {
      upload.send(chunk(i === 0 ? Buffer.concat([Buffer.from('{"object":"instagram","entry":[],"pad":"'), piece]) : piece));
      await sleep(50);
    }
    const answer = await upload.answer(TIMEOUT_MS + 3000);
    assert.deepEqual(outcome(answer), { status: 503, code: 'server_busy', connection: 'close', retryAfter: '2', closed: true });
    assert.ok(answer.ms < TIMEOUT_MS, `refused after ${answer.ms} ms, while the body arrived`);
    // A chunked body within the budget is read.
    const small = notification(200_000);
    const next = webhookUpload(t, undefined, Buffer.concat([chunk(small.subarray(0, 100_000)), chunk(small.subarray(100_000)), Buffer.from('0\r\n\r\n')]));
    assert.equal((await next.answer(2000)).status, 200);
  });

  it('refusals are logged through the throttle, not a line each', async () => {
    const before = t.logs.length;
    const body = notification(HELD);
    const held = Array.from({ length: 3 }, () => webhookUpload(t, body.length, body.subarray(0, 10)));
    await sleep(300);
    const refused = await Promise.all(Array.from({ length: 20 }, () => webhookUpload(t, body.length, body.subarray(0, 10)).answer(2000)));
    assert.deepEqual([...new Set(refused.map((a) => a.status))], [503]);
    await Promise.all(held.map((h) => h.answer(TIMEOUT_MS + 3000)));
    const lines = t.logs.slice(before).join('').split('\n').filter((l) => l.includes('"status":503') || l.includes('server_busy'));
    assert.ok(lines.length <= 4, `${lines.length} lines for 20 refusals`);
  });

  it('refuses to start with a budget below the body limit of a public route, naming the setting', async () => {
    await assert.rejects(startTestServer({
      plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/channel-instagram', options: { profileLookup: false } }],
      config: { publicBodies: { timeoutMs: TIMEOUT_MS, maxBufferedBytes: BUDGET - 1 } },
    }), (err: Error) => err.message === `publicBodies.maxBufferedBytes (${BUDGET - 1}) is below ${BUDGET} bytes, the body limit of a public route (Meta's webhooks): raise it to at least that`);
  });

  it('a body under a real instance key is not bound by the limit of unauthenticated callers', async () => {
    const { key } = await t.createInstance({ name: 'slow-sender' });
    const body = Buffer.from(JSON.stringify({ to: '5511960000002', base64: dataUri('image/png', sampleBytes(SAMPLES.png.subarray(0, 8), 150_000)) }));
    const upload = RawUpload.open(t.url, 'POST', `/${key}/message/base64/image`, { 'Content-Type': 'application/json', 'Content-Length': String(body.length), Connection: 'close' });
    upload.send(body.subarray(0, 1000));
    await sleep(TIMEOUT_MS * 2);
    assert.equal(upload.answered, false, 'nothing answered while the body is arriving');
    upload.send(body.subarray(1000));
    const answer = await upload.answer(5000);
    // The instance is not connected: the handler saw the whole body and refused the send.
    assert.deepEqual({ status: answer.status, code: answer.body?.error?.code }, { status: 409, code: 'not_connected' });
  });
});
