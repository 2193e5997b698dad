import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { AnswerRecorder } from '../support/answer-recorder.js';
import { apiErrorAnswer } from '../support/api-error.js';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.js';

/** An error answer has exactly `status` and `error` {code, message, details?}: no stack, no internals. */
function assertErrorShape(res: TestResponse, status: number, code: string, message?: string): void {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'status']);
  assert.equal(res.body.status, status);
  assert.deepEqual(Object.keys(res.body.error).filter((k) => k !== 'details').sort(), ['code', 'message']);
  assert.equal(res.body.error.code, code);
  if (message !== undefined) assert.equal(res.body.error.message, message);
  assert.doesNotMatch(res.raw.toString('utf8'), /<html|<pre|\bat [\w.<>]+ \(|node_modules|\/dist\//i);
}

const WHERE = 'Parley serves /{key}/… (instance API) and /admin/…; see /docs';

describe('the error model', () => {
  let t: TestServer;
  let small: TestServer;
  let key: string;

  before(async () => {
    t = await startTestServer();
    small = await startTestServer({ config: { bodyLimitBytes: 1024 } });
    key = (await t.createInstance({ number: '5511930000001' })).key;
  });
  after(async () => {
    await small.stop();
    await t.stop();
  });

  it('malformed JSON answers 400 malformed_json', async () => {
    // Raw HTTP: the typed client only ever sends the JSON encoding of a typed body.
    for (const body of ['{"phoneNumber": ', '{phoneNumber: "1"}', 'nul', '{"a":1}}']) {
      const res = await t.request('POST', `/${key}/instance/pairing-code`, body, { 'content-type': 'application/json' });
      assert.deepEqual(res.body, { status: 400, error: { code: 'malformed_json', message: 'request body is not valid JSON' } }, body);
      assertErrorShape(res, 400, 'malformed_json');
    }
  });

  it('a JSON body that is not an object, or no JSON body where one is required, answers 400', async () => {
    // Raw HTTP: bodies that are not the typed JSON object.
    const array = await t.request('POST', `/${key}/instance/pairing-code`, '[1,2]', { 'content-type': 'application/json' });
    assertErrorShape(array, 400, 'validation_failed', 'body must be a JSON object (Content-Type: application/json)');
    // A top-level scalar is valid JSON of the wrong type: a validation failure, not malformed JSON, whichever parser reads it.
    for (const body of ['"text"', '42', 'null', 'true']) {
      const res = await t.request('POST', `/${key}/instance/pairing-code`, body, { 'content-type': 'application/json' });
      assertErrorShape(res, 400, 'validation_failed', 'body must be a JSON object (Content-Type: application/json)');
      // Compressed: read by express.json, the fallback parser.
      const zipped = await t.request('POST', `/${key}/instance/pairing-code`, gzipSync(body), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      assertErrorShape(zipped, 400, 'validation_failed', 'body must be a JSON object (Content-Type: application/json)');
    }
    const text = await t.request('POST', `/${key}/instance/pairing-code`, 'phoneNumber=5511930000001', { 'content-type': 'application/x-www-form-urlencoded' });
    assertErrorShape(text, 400, 'validation_failed', 'body must be a JSON object (Content-Type: application/json)');
    const none = await t.request('POST', `/${key}/instance/pairing-code`);
    assertErrorShape(none, 400, 'validation_failed', 'body must be a JSON object (Content-Type: application/json)');
  });

  it('an oversized body answers 413 payload_too_large before any handler runs', async () => {
    const smallKey = (await small.createInstance({ number: '5511930000002' })).key;
    const recorder = new AnswerRecorder(small);
    const api = recorder.instance(smallKey);
    await assert.rejects(api.call('updateWebhookSettings', { body: { webhookMessage: `https://hooks.example.com/${'a'.repeat(1100)}` } }),
      apiErrorAnswer({ status: 413, error: { code: 'payload_too_large', message: 'request body exceeds the limit of 1024 bytes', details: { limit: 1024 } } }));
    assertErrorShape(recorder.last, 413, 'payload_too_large');
    assert.equal((await api.call('getInstance')).instance.webhook.webhookMessage, '');
    // Under the limit the same route works.
    assert.equal((await api.call('updateWebhookSettings', { body: { webhookMessage: 'https://hooks.example.com/ok' } })).status, 200);
  });

  it('an unsupported body encoding or charset answers 415', async () => {
    // Raw HTTP: a typed call never declares a content encoding or charset for its JSON body.
    const encoded = await t.request('POST', `/${key}/instance/pairing-code`, '{}', { 'content-type': 'application/json', 'content-encoding': 'x-unknown' });
    assertErrorShape(encoded, 415, 'unsupported_media_type');
    const charset = await t.request('POST', `/${key}/instance/pairing-code`, '{}', { 'content-type': 'application/json; charset=ebcdic' });
    assertErrorShape(charset, 415, 'unsupported_media_type');
  });

  it('an unknown route answers 404 route_not_found as JSON, never HTML, without echoing a key', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/nope', `unknown path GET /nope: ${WHERE}`],
      ['GET', '/robots.txt', `unknown path GET /robots.txt: ${WHERE}`],
      ['GET', '/favicon.ico', `unknown path GET /favicon.ico: ${WHERE}`],
      ['GET', '/nope/cpu/total', `unknown path GET /nope/…: ${WHERE}`],
      ['GET', '/metrics/cpu/total', 'no route GET /metrics/cpu/total'],
      // A first segment that may be a key is never echoed.
      ['GET', `/${key}`, 'no route GET /:key'],
      ['GET', `/${key}/nothing/here`, 'no route GET /:key/nothing/here'],
      ['PATCH', '/admin/instances', 'no route PATCH /admin/instances'],
      ['DELETE', '/healthz', 'no route DELETE /healthz'],
      ['POST', '/', 'no route POST /'],
    ];
    // Raw HTTP: no typed operation exists for these routes.
    for (const [method, path, message] of cases) {
      const res = await t.request(method, path, undefined, { accept: 'text/html' });
      assert.deepEqual(res.body, { status: 404, error: { code: 'route_not_found', message } }, `${method} ${path}`);
      assertErrorShape(res, 404, 'route_not_found');
      assert.ok(!res.raw.toString().includes(key));
    }
  });

  it('a missing docs asset answers a JSON 404 without the file system path', async () => {
    // Raw HTTP: docs assets are no typed operation.
    const res = await t.request('GET', '/docs/assets/no-such-file.js');
    assertErrorShape(res, 404, 'not_found', 'Not Found');
    assert.doesNotMatch(res.raw.toString('utf8'), /ENOENT|swagger-ui-dist|\/work|\/node/);
    assertErrorShape(await t.request('GET', '/docs/assets/'), 404, 'not_found', 'Not Found');
  });

  it('wrong types and missing fields name every failing field, with details', async () => {
    // Raw HTTP: wrong types, a missing member and an unknown one, which the typed client refuses.
    const res = await t.request('POST', `/${key}/instance/mobile/prepare`, { phoneNumberCountryCode: 55, phoneNumberMobileNetworkCode: '1', extra: true });
    assertErrorShape(res, 400, 'validation_failed',
      'body.phoneNumberNationalNumber is required; body.extra is not allowed; body.phoneNumberCountryCode must be string');
    assert.deepEqual(res.body.error.details, {
      fields: [
        { field: 'body.phoneNumberNationalNumber', message: 'body.phoneNumberNationalNumber is required' },
        { field: 'body.extra', message: 'body.extra is not allowed' },
        { field: 'body.phoneNumberCountryCode', message: 'body.phoneNumberCountryCode must be string' },
      ],
    });
  });

  it('bodies are not coerced; query strings are coerced to the declared type only from its literal forms', async () => {
    // Raw HTTP: wrong types, which the typed client refuses.
    assertErrorShape(await t.admin('POST', '/admin/instances', { name: 12 }), 400, 'validation_failed', 'body.name must be string');
    assertErrorShape(await t.request('PUT', `/${key}/instance`, { allowWebhook: 'true' }), 400, 'validation_failed', 'body.allowWebhook must be boolean');
    assertErrorShape(await t.request('PATCH', `/${key}/instance?saveMedia=1`), 400, 'validation_failed', 'query.saveMedia must be boolean');
    assert.equal((await t.client(key).call('updateInstanceFlags', { query: { saveMedia: true } })).status, 200);
    assert.equal((await t.client(key).call('getInstance')).instance.save_media, true);
  });

  it('an unknown instance key answers 404 instance_not_found before validation', async () => {
    // Raw HTTP: an unknown member, which the typed client refuses.
    const res = await t.request('POST', '/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/instance/pairing-code', { wrong: true });
    assert.deepEqual(res.body, { status: 404, error: { code: 'instance_not_found', message: 'instance not found' } });
  });

  it('a request line the HTTP parser refuses gets a 400 without a body leak', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const url = new URL(t.url);
      const req = httpRequest({ host: url.hostname, port: url.port, method: 'GET', path: '/healthz', headers: { 'content-length': 'abc' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(`${res.statusCode} ${text}`));
      });
      req.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code}`));
      req.on('timeout', () => reject(new Error('timeout')));
      req.end();
    }).catch((err: Error) => `error ${err.message}`);
    assert.match(answer, /^(400|error)/);
    assert.doesNotMatch(answer, /\bat \w+ \(|node_modules/);
  });
});

describe('health and readiness', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ storage: 'sqlite' });
  });
  after(async () => {
    await t.stop();
  });

  it('GET /healthz answers ok with the uptime and version', async () => {
    const res = await t.client().call('healthz');
    assert.deepEqual(Object.keys(res.data).sort(), ['status', 'uptime', 'version']);
    assert.equal(res.status, 200);
    assert.equal(res.data.status, 'ok');
    assert.ok(Number.isInteger(res.data.uptime) && res.data.uptime! >= 0);
    assert.equal(res.data.version, t.server.context.version);
    assert.match(res.data.version!, /^\d+\.\d+\.\d+/);
  });

  it('GET /readyz answers ready with the storage name (and no sinks configured)', async () => {
    assert.deepEqual(await t.client().call('readyz'), { status: 200, data: { status: 'ready', storage: 'sqlite', sinks: {} } });
  });

  it('GET /readyz answers 503 while storage is not reachable, and recovers', async () => {
    const storage = t.server.context.storage;
    const health = storage.health.bind(storage);
    // Simulates an unreachable database for the probe only.
    storage.health = async () => ({ ready: false, detail: 'disk unavailable' });
    const api = t.client();
    const unavailable = (message: string) => apiErrorAnswer({ status: 503, error: { code: 'service_unavailable', message } });
    try {
      await assert.rejects(api.call('readyz'), unavailable('storage sqlite is not ready: disk unavailable'));
      storage.health = async () => {
        throw new Error('connection reset');
      };
      await assert.rejects(api.call('readyz'), unavailable('storage sqlite is not ready: connection reset'));
      assert.equal((await api.call('healthz')).status, 200);
    } finally {
      storage.health = health;
    }
    assert.equal((await api.call('readyz')).status, 200);
  });
});
