import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { AttemptTimeoutError, HttpSender } from '../src/http-sender.js';

/**
 * The webhook sender against a real loopback server: the address actually dialled is refused
 * (literals and host names alike) before any connection unless private addresses are allowed;
 * connections are kept alive and reused; time-outs, aborts, Retry-After and redirects.
 */
describe('HttpSender (undici, guarded at connect time)', () => {
  let server: http.Server;
  let port: number;
  let connections = 0;
  const bodies: string[] = [];
  const never = new AbortController().signal;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        if (req.url === '/hang') return;
        if (req.url === '/busy') return res.writeHead(503, { 'retry-after': '7' }).end('busy');
        if (req.url === '/moved') return res.writeHead(302, { location: '/elsewhere' }).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ua: req.headers['user-agent'], sig: req.headers['webhook-signature'] }));
      });
    });
    server.on('connection', () => connections++);
    // Dual-stack: IPv4-mapped literals reach it too.
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (sender: HttpSender, url: string, timeoutMs = 5_000, signal = never) =>
    sender.post(url, { 'content-type': 'application/json', 'webhook-signature': 'v1,abc' }, '{"n":1}', timeoutMs, signal);

  it('refuses loopback literals, IPv4-embedding IPv6 literals and names resolving to loopback, without connecting', async () => {
    const sender = new HttpSender(false, 'Parley-test', 4);
    try {
      const before = connections;
      for (const host of [
        '127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[2002:7f00:1::]', '[64:ff9b::7f00:1]',
        '[64:ff9b:1::7f00:1]', '[2001::7f00:1]', '[fec0::1]', 'localhost', hostname(),
      ]) {
        await assert.rejects(post(sender, `http://${host}:${port}/`), (err: NodeJS.ErrnoException) => err.code === 'EPRIVATEADDR', host);
      }
      await assert.rejects(post(sender, `http://127.0.0.1:${port}/`), { message: '127.0.0.1 is a private address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)' });
      await assert.rejects(post(sender, `http://localhost:${port}/`), { message: /^localhost resolves to a private address \((127\.0\.0\.1|::1)\)$/ });
      assert.equal(connections, before, 'a refused address was dialled');
    } finally {
      sender.destroy();
    }
  });

  it('connects when private addresses are allowed, sends the body, and keeps at most maxSockets connections per origin alive', async () => {
    const sender = new HttpSender(true, 'Parley-test', 2);
    try {
      for (const host of ['[::ffff:127.0.0.1]', 'localhost']) {
        assert.equal((await post(sender, `http://${host}:${port}/ok?x=1`)).status, 200, host);
      }
      const before = connections;
      const count = bodies.length;
      // 40 posts, 4 at a time, to one origin: over 2 kept-alive connections at most.
      for (let i = 0; i < 10; i++) {
        const answers = await Promise.all(Array.from({ length: 4 }, () => post(sender, `http://127.0.0.1:${port}/ok`)));
        assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200]);
      }
      assert.ok(connections - before <= 2, `${connections - before} connections for 40 posts`);
      assert.deepEqual(bodies.slice(count), Array.from({ length: 40 }, () => '{"n":1}'));
    } finally {
      sender.destroy();
    }
  });

  it('answers the status and Retry-After of a refusal, and does not follow redirects', async () => {
    const sender = new HttpSender(true, 'Parley-test', 4);
    try {
      const busy = await post(sender, `http://127.0.0.1:${port}/busy`);
      assert.equal(busy.status, 503);
      assert.equal(busy.retryAfter, '7');
      const moved = await post(sender, `http://127.0.0.1:${port}/moved`);
      assert.deepEqual({ status: moved.status, retryAfter: moved.retryAfter }, { status: 302, retryAfter: undefined });
    } finally {
      sender.destroy();
    }
  });

  it('fails an attempt with no answer in time, and one the signal aborts', async () => {
    const sender = new HttpSender(true, 'Parley-test', 4);
    try {
      await assert.rejects(post(sender, `http://127.0.0.1:${port}/hang`, 200), (err: unknown) => err instanceof AttemptTimeoutError);
      const stop = new AbortController();
      const pending = post(sender, `http://127.0.0.1:${port}/hang`, 60_000, stop.signal);
      setTimeout(() => stop.abort(), 50);
      await assert.rejects(pending, { code: 'ABORT_ERR' });
      await assert.rejects(post(sender, `http://127.0.0.1:${port}/ok`, 5_000, stop.signal), { code: 'ABORT_ERR' });
      // The sender still works after both.
      assert.equal((await post(sender, `http://127.0.0.1:${port}/ok`)).status, 200);
      await assert.rejects(post(sender, 'ftp://127.0.0.1/x'), { message: 'unsupported scheme ftp:' });
    } finally {
      sender.destroy();
    }
  });
});
