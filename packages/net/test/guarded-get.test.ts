import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedGet, GuardedGetError, type GuardedGetFailure } from '../src/index.js';

describe('guardedGet', () => {
  let server: Server;
  let base: string;

  before(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/ok') res.writeHead(200, { 'content-type': 'Image/PNG; charset=binary' }).end('png-bytes');
      else if (path.startsWith('/hop')) res.writeHead(302, { location: `/hop${path.length}` }).end();
      else if (path === '/to-ok') res.writeHead(301, { location: '/ok' }).end();
      else if (path === '/gone') res.writeHead(410).end('gone');
      else if (path === '/empty') res.writeHead(200).end();
      else if (path === '/stream') {
        // No Content-Length: the limit applies while streaming.
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.write(Buffer.alloc(600));
        res.end(Buffer.alloc(600));
      } else if (path === '/hang') res.writeHead(200); // headers, then nothing
      else if (path === '/drip') {
        // A byte every 100 ms, until the client goes.
        res.writeHead(200);
        const drip = setInterval(() => res.write('x'), 100);
        res.on('close', () => clearInterval(drip));
      } // '/silent': no headers ever
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const limits: { maxBytes: number; timeoutMs: number; allowPrivate: boolean; idleMs?: number } = { maxBytes: 1000, timeoutMs: 2000, allowPrivate: true };
  const accept = async (next: string) => new URL(next);
  async function failure(path: string, overrides: Partial<typeof limits> = {}): Promise<[GuardedGetFailure, string, number | undefined]> {
    try {
      await guardedGet(new URL(path, base), { ...limits, ...overrides }, accept);
    } catch (err) {
      assert.ok(err instanceof GuardedGetError, String(err));
      return [err.failure, err.message, err.httpStatus];
    }
    throw new Error(`${path} did not fail`);
  }

  it('answers the bytes, the bare lower-cased type and the URL that answered, after re-checked redirects', async () => {
    const checked: string[] = [];
    const answer = await guardedGet(new URL('/to-ok', base), limits, async (next) => {
      checked.push(next);
      return new URL(next);
    });
    assert.deepStrictEqual({ data: answer.data.toString(), mimetype: answer.mimetype, url: answer.url.href }, { data: 'png-bytes', mimetype: 'image/png', url: `${base}/ok` });
    assert.deepStrictEqual(checked, [`${base}/ok`]);
  });

  it('lets checkRedirect refuse a hop with its own error', async () => {
    const refused = new Error('no redirects here');
    await assert.rejects(guardedGet(new URL('/to-ok', base), limits, async () => {
      throw refused;
    }), (err) => err === refused);
  });

  it('classifies every failure', async () => {
    assert.deepStrictEqual(await failure('/gone'), ['status', 'HTTP 410', 410]);
    assert.deepStrictEqual(await failure('/empty'), ['empty', 'empty body', undefined]);
    assert.deepStrictEqual(await failure('/stream'), ['too_large', 'larger than 1000 bytes', undefined]);
    assert.deepStrictEqual(await failure('/hop'), ['redirects', 'too many redirects', undefined]);
    assert.deepStrictEqual(await failure('/hang', { timeoutMs: 200 }), ['timeout', 'timed out', undefined]);
    // idleMs: no headers, or no next chunk, within it; a body that keeps dripping passes it but not the deadline.
    assert.deepStrictEqual(await failure('/silent', { idleMs: 200 }), ['idle', 'no data for too long', undefined]);
    assert.deepStrictEqual(await failure('/hang', { idleMs: 200 }), ['idle', 'no data for too long', undefined]);
    const started = Date.now();
    assert.deepStrictEqual(await failure('/drip', { idleMs: 400, timeoutMs: 700 }), ['timeout', 'timed out', undefined]);
    assert.ok(Date.now() - started < 1500, `the drip was stopped after ${Date.now() - started} ms`);
    // The address is checked when connecting: a name resolving to loopback is refused without allowPrivate.
    const port = new URL(base).port;
    assert.deepStrictEqual(await failure(`http://localhost:${port}/ok`, { allowPrivate: false }), ['private_address', 'it points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)', undefined]);
  });
});
