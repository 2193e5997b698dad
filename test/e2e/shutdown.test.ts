import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startLocalHttp, type LocalHttp } from './fixtures/local-http.js';

/** A request made while the server stops: either a 503 on a kept-alive connection, or a refused connection. */
async function refusedOr503(url: string): Promise<string> {
  try {
    const res = await fetch(url);
    const body = await res.json();
    assert.deepEqual(body, { status: 503, error: { code: 'shutting_down', message: 'the server is shutting down' } });
    assert.equal(res.status, 503);
    return '503';
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    assert.ok(code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET', `unexpected failure: ${String(err)} ${code}`);
    return 'refused';
  }
}

describe('graceful shutdown', () => {
  let t: TestServer;
  let media: LocalHttp;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let mediaRequested!: () => void;
  const requested = new Promise<void>((resolve) => {
    mediaRequested = resolve;
  });

  before(async () => {
    media = await startLocalHttp(async (_req, res) => {
      mediaRequested();
      await released;
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    });
    t = await startTestServer({ storage: 'sqlite' });
  });
  after(async () => {
    release();
    await t.stop();
    await media.close();
  });

  it('lets an in-flight request finish, refuses new ones, and then stops', async () => {
    const alice = await t.connectedSandbox({ name: 'alice', number: '5511960000001' });
    // Keep a connection alive to observe the 503 path as well as refused connections.
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);

    // A connection opened and never used (a client's spare one): Node does not count it idle.
    const { port } = new URL(t.url);
    const unused = connect(Number(port), '127.0.0.1');
    const unusedClosed = new Promise<void>((resolve) => unused.once('close', () => resolve()));
    await new Promise((resolve, reject) => unused.once('connect', resolve).once('error', reject));
    const inFlight = t.request('PUT', `/${alice.key}/instance/profile/picture`, { url: `${media.url}/slow.png` });
    await requested;
    const closing = t.server.close();
    let closed = false;
    void closing.then(() => {
      closed = true;
    });

    const outcomes = [await refusedOr503(`${t.url}/healthz`), await refusedOr503(`${t.url}/readyz`), await refusedOr503(`${t.url}/${alice.key}/instance`)];
    assert.equal(outcomes.length, 3);
    assert.equal(closed, false, 'close waits for the in-flight request');

    release();
    const answer = await inFlight;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.imageProfile, `${t.server.context.host.publicUrl}/${alice.key}/instance/profile/picture`);
    // Its kept-alive connection is closed once answered, the unused one at once: the stop waits for neither until shutdownTimeoutMs.
    const limitMs = t.server.context.config.shutdownTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([closing.then(() => 'closed'), new Promise((r) => (timer = setTimeout(() => r('held'), limitMs / 2)))]);
    clearTimeout(timer);
    assert.equal(first, 'closed', `the stop waited for the answered request's connection or the unused one (shutdownTimeoutMs ${limitMs})`);
    assert.equal(closed, true);
    await unusedClosed;
    // The completed request's effect was stored before storage closed.
    await assert.rejects(fetch(`${t.url}/healthz`));
  });
});
