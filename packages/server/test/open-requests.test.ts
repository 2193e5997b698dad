import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { OpenRequests } from '../src/http/open-requests.js';

describe('OpenRequests', () => {
  it('names the requests a server is answering, by route template and forwarding node, never by path, and the connections without one; closes those no request began on', async () => {
    const open = new OpenRequests();
    let answer: (() => void) | undefined;
    const server = createServer((req, res) => {
      if (req.url === '/secretkeysecretkeysecretkey1234/message/text') Object.assign(req, { parleyRoute: '/:key/message/text' });
      answer = () => res.end('ok');
    });
    open.track(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const done = new Promise<number>((resolve, reject) => {
      request({ port, host: '127.0.0.1', method: 'POST', path: '/secretkeysecretkeysecretkey1234/message/text', headers: { 'x-parley-forwarded-by': 'n1', 'x-request-id': 'r-1' } },
        (res) => res.resume().on('end', () => resolve(res.statusCode!))).on('error', reject).end();
    });
    try {
      for (let i = 0; i < 200 && !answer; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(open.size, 1);
      const line = open.describe();
      assert.match(line, /^POST \/:key\/message\/text forwarded by n1 \(request r-1\) open \d+ ms$/);
      assert.ok(!line.includes('secretkey'), 'the path, which carries the instance key, is never named');
      answer!();
      assert.equal(await done, 200);
      // Kept alive: the connection stays open without a request.
      for (let i = 0; i < 200 && !open.describe().startsWith('connection'); i++) await new Promise((r) => setTimeout(r, 10));
      assert.match(open.describe(), /^connection from 127\.0\.0\.1:\d+ without an open request \(\d+ B read, \d+ B written\)$/, 'an answered request is no longer open');
      // A connection no request has begun on is closed; the kept-alive one, which served a request, is Node's to close.
      const unused = connect(port, '127.0.0.1');
      await new Promise((resolve) => unused.once('connect', resolve));
      for (let i = 0; i < 200 && open.size < 2; i++) await new Promise((r) => setTimeout(r, 10));
      const unusedClosed = new Promise((resolve) => unused.once('close', resolve));
      open.closeUnused();
      await unusedClosed;
      for (let i = 0; i < 200 && open.size > 1; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(open.size, 1, 'the used connection is left open');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
