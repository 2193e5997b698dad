import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOUD_VERSION, cloudErrorOf, cloudRequest } from '../support/cloud-api.js';
import { startTestServer } from '../support/test-server.js';

/**
 * The rows of the error table (docs/cloud-api.md, cloud-errors.ts) not reached by the other Cloud API
 * suites, each through the real path: the instance not connected and failed tokens blocking the address
 * (a type the channel cannot send and the channel's API failing: cloud-api-meta-window.test.ts).
 */
describe('Cloud API errors: the rest of the table', () => {
  it('a send on an instance that is not connected answers 131005 (access denied), nothing queued', async () => {
    const t = await startTestServer();
    try {
      const offline = await t.createInstance({ name: 'offline' });
      const res = await cloudRequest(t, offline.key, 'POST', `/${CLOUD_VERSION}/${offline.id}/messages`, { messaging_product: 'whatsapp', to: '5511900000902', type: 'text', text: { body: 'x' } });
      assert.deepEqual(cloudErrorOf(res), [409, 131005, undefined, '(#131005) Access denied', 'the instance is not connected: connect it with POST /{key}/instance first']);
      assert.equal((await t.client(offline.key).call('listQueue')).total, 0);
    } finally {
      await t.stop();
    }
  });

  it('failed tokens on the Cloud API paths count against the address: code 190 until blocked, then 429 with code 4 and Retry-After', async () => {
    const t = await startTestServer({ config: { rateLimit: { failures: 3, windowSeconds: 60, blockSeconds: 30 }, trustProxy: 'loopback' } });
    try {
      const alice = await t.connectedSandbox({ name: 'alice', number: '5511900000911' });
      const from = { 'x-forwarded-for': '203.0.113.91' };
      const get = (token: string) => fetch(`${t.url}/${CLOUD_VERSION}/${alice.id}`, { headers: { ...from, authorization: `Bearer ${token}` } });
      const answers = [];
      for (let i = 0; i < 4; i++) {
        const res = await get(`wrong-token-${i}-0123456789abcdef`);
        answers.push([res.status, ((await res.json()) as any).error.code]);
      }
      assert.deepEqual(answers, [[401, 190], [401, 190], [401, 190], [429, 4]]);
      const blocked = await get('wrong-token-4-0123456789abcdef');
      const body = await blocked.json() as any;
      assert.deepEqual(cloudErrorOf({ status: blocked.status, body }), [429, 4, undefined, '(#4) Application request limit reached', 'too many failed authentications from this address; retry in 30 s']);
      assert.equal(blocked.headers.get('retry-after'), '30');
      // As on every path, the right token is still answered from a blocked address.
      assert.equal((await get(alice.key)).status, 200);
    } finally {
      await t.stop();
    }
  });
  it('a Graph path or method Parley does not answer, and a request while the server stops, answer in the Cloud API\'s envelope', async () => {
    const t = await startTestServer();
    try {
      const alice = await t.connectedSandbox({ name: 'alice', number: '5511900000921' });
      // What whatsapp-api-js also builds (blocking users, QR codes, registration) and methods no path has.
      for (const [method, path] of [['POST', `/${alice.id}/block_users`], ['GET', `/${alice.id}/message_qrdls`], ['POST', `/${alice.id}/register`], ['PUT', `/${alice.id}/messages`], ['GET', `/${alice.id}/messages`], ['GET', `/${alice.id}/a/b/c`]] as const) {
        const res = await cloudRequest(t, alice.key, method, `/${CLOUD_VERSION}${path}`, method === 'GET' ? undefined : { messaging_product: 'whatsapp' });
        const [status, code, subcode, title, details] = cloudErrorOf(res);
        assert.deepEqual([status, code, subcode, title, res.body.error.type], [400, 100, 33, '(#100) Unsupported request', 'GraphMethodException'], `${method} ${path}`);
        assert.equal(details, `no route ${method} /${CLOUD_VERSION}/:id${path.slice(alice.id.length + 1)} (the paths answered are listed in /docs)`);
      }
      // Outside the Cloud API's version segment, Parley's own model as before.
      assert.equal((await t.request('GET', '/nothing-here')).body.error.code, 'route_not_found');
      // What close() sets first: every request is then refused, each in its path's envelope.
      (t.server as unknown as { shuttingDown: boolean }).shuttingDown = true;
      try {
        const cloud = await cloudRequest(t, alice.key, 'GET', `/${CLOUD_VERSION}/${alice.id}`);
        assert.deepEqual(cloudErrorOf(cloud), [503, 2, undefined, '(#2) Service temporarily unavailable', 'the server is shutting down']);
        assert.deepEqual((await t.request('GET', `/${alice.key}/instance`)).body, { status: 503, error: { code: 'shutting_down', message: 'the server is shutting down' } });
      } finally {
        (t.server as unknown as { shuttingDown: boolean }).shuttingDown = false;
      }
    } finally {
      await t.stop();
    }
  });
});
