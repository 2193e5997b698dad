import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { isPrivateAddress, isParleyError } from '@parley/core';
import { MediaResolver } from '../src/services/media-resolver.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(300, 7)]);

/** Asserts `promise` rejects with a Parley error of this HTTP status and message. */
async function rejects(promise: Promise<unknown>, status: number, message: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(isParleyError(err), `not a Parley error: ${String(err)}`);
    assert.equal(err.status, status);
    assert.equal(err.message, message);
    return true;
  });
}

describe('MediaResolver', () => {
  const hits = new Map<string, number>();
  let server: http.Server;
  let port: number;
  const routes: Record<string, (res: http.ServerResponse) => void> = {
    '/a.png': (res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
    '/page': (res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>'),
    '/to-a': (res) => res.writeHead(302, { location: '/a.png' }).end(),
    '/abs-to-a': (res) => res.writeHead(301, { location: `http://127.0.0.1:${port}/a.png` }).end(),
    '/loop1': (res) => res.writeHead(302, { location: '/loop2' }).end(),
    '/loop2': (res) => res.writeHead(302, { location: '/loop3' }).end(),
    '/loop3': (res) => res.writeHead(302, { location: '/loop4' }).end(),
    '/loop4': (res) => res.writeHead(302, { location: '/a.png' }).end(),
    '/to-file': (res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    '/declared-big': (res) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': '5000' }).end(Buffer.alloc(5000)),
    '/streamed-big': (res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      for (let i = 0; i < 5; i++) res.write(Buffer.alloc(1000));
      res.end();
    },
    '/silent': () => undefined,
  };

  before(async () => {
    server = http.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const route = routes[path];
      if (route) route(res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const total = () => [...hits.values()].reduce((a, b) => a + b, 0);

  describe('when private URLs are not allowed', () => {
    const resolver = new MediaResolver({ maxBytes: 1024 * 1024, timeoutMs: 2000, allowPrivateUrls: false });

    it('refuses loopback literals, however they are written, without connecting', async () => {
      const before = total();
      for (const host of ['127.0.0.1', '[::1]', '0x7f.1', '2130706433', '[::ffff:127.0.0.1]', '10.0.0.8', '169.254.169.254',
        '[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[2002:7f00:1::]', '[64:ff9b::7f00:1]', '[64:ff9b:1::1]', '[2001::1]', '[fec0::1]']) {
        await rejects(resolver.resolve(`http://${host}:${port}/a.png`, 'body.url', 'image'), 400, 'body.url points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)');
      }
      assert.equal(total(), before);
    });

    it('refuses localhost names without resolving them', async () => {
      for (const host of ['localhost', 'LOCALHOST', 'api.localhost']) {
        await rejects(resolver.resolve(`http://${host}:${port}/a.png`, 'body.url', 'image'), 400, 'body.url points to a private network host (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)');
      }
    });

    it('refuses a host name that resolves to a private address, at connect time', async () => {
      const name = hostname();
      const addresses = await lookup(name, { all: true });
      assert.ok(addresses.length > 0 && addresses.every((a) => isPrivateAddress(a.address)), `${name} resolves to ${JSON.stringify(addresses)}`);
      const before = total();
      await rejects(resolver.resolve(`http://${name}:${port}/a.png`, 'body.url', 'image'), 400, 'body.url could not be fetched: it points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)');
      assert.equal(total(), before);
    });

    it('refuses schemes other than http and https', async () => {
      for (const url of ['file:///etc/passwd', 'ftp://example.com/a.png', 'gopher://example.com/']) {
        await rejects(resolver.resolve(url, 'body.url', 'image'), 400, 'body.url must use http, https');
      }
      await rejects(resolver.resolve('not a url', 'body.url', 'image'), 400, 'body.url must be an absolute URL');
    });

    it('still decodes data URIs (no network involved)', async () => {
      const media = await resolver.resolve(`data:image/png;base64,${PNG.toString('base64')}`, 'body.url', 'image');
      assert.ok(media.data.equals(PNG));
      assert.equal(media.mimetype, 'image/png');
      assert.equal(media.sourceUrl, undefined);
    });
  });

  describe('redirects and limits (private URLs allowed, as on a test server)', () => {
    const resolver = new MediaResolver({ maxBytes: 4096, timeoutMs: 2000, allowPrivateUrls: true, maxRedirects: 3 });

    it('follows relative and absolute redirects, re-checking each hop, and keeps the given URL as the source', async () => {
      for (const path of ['/to-a', '/abs-to-a']) {
        const before = hits.get('/a.png') ?? 0;
        const media = await resolver.resolve(`http://127.0.0.1:${port}${path}`, 'body.url', 'image');
        assert.ok(media.data.equals(PNG));
        assert.equal(media.mimetype, 'image/png');
        assert.equal(media.fileName, 'a.png');
        assert.equal(media.sourceUrl, `http://127.0.0.1:${port}${path}`);
        assert.equal(hits.get('/a.png'), before + 1);
      }
    });

    it('stops after maxRedirects hops', async () => {
      await rejects(resolver.resolve(`http://127.0.0.1:${port}/loop1`, 'body.url', 'image'), 400, 'body.url redirects too many times');
      assert.equal(hits.get('/loop4'), 1);
      assert.equal(hits.get('/a.png') ?? 0, 2);
    });

    it('refuses a redirect to another scheme', async () => {
      await rejects(resolver.resolve(`http://127.0.0.1:${port}/to-file`, 'body.url', 'image'), 400, 'body.url must use http, https');
    });

    it('refuses the wrong content type, error statuses, and bodies over the limit', async () => {
      await rejects(resolver.resolve(`http://127.0.0.1:${port}/page`, 'body.url', 'image'), 400, 'body.url has content type text/html, which is not a valid image');
      await rejects(resolver.resolve(`http://127.0.0.1:${port}/nothing`, 'body.url', 'image'), 400, 'body.url could not be fetched: HTTP 404');
      await rejects(resolver.resolve(`http://127.0.0.1:${port}/declared-big`, 'body.url', 'image'), 413, 'body.url is larger than 4096 bytes');
      await rejects(resolver.resolve(`http://127.0.0.1:${port}/streamed-big`, 'body.url', 'image'), 413, 'body.url is larger than 4096 bytes');
      await rejects(resolver.resolve(`data:image/png;base64,${Buffer.alloc(5000).toString('base64')}`, 'body.base64', 'image'), 413, 'body.base64 is larger than 4096 bytes');
    });

    it('gives up on a server that never answers', async () => {
      const impatient = new MediaResolver({ maxBytes: 4096, timeoutMs: 200, allowPrivateUrls: true });
      await rejects(impatient.resolve(`http://127.0.0.1:${port}/silent`, 'body.url', 'image'), 400, 'body.url could not be fetched: timed out');
    });
  });
});
