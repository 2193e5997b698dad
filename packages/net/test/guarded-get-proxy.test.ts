import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHttpProxy, startSocksProxy, type ConnectSeen, type LocalServer, type SocksSeen } from '@parley/testkit';
import { guardedGet, GuardedGetError, parseProxy, type ResolveHost } from '../src/index.js';

const PUBLIC = '93.184.215.14';
const NAMES: Record<string, string[]> = { 'cdn.example': [PUBLIC], 'split.example': [PUBLIC, '10.0.0.7'] };
const resolve: ResolveHost = async (host) => {
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

describe('guardedGet through a proxy', () => {
  let web: Server;
  let webPort: number;
  let http: LocalServer<ConnectSeen>;
  let socks: LocalServer<SocksSeen>;
  const paths: string[] = [];

  before(async () => {
    web = createServer((req, res) => {
      paths.push(req.url ?? '');
      if (req.url === '/to-split') res.writeHead(302, { location: 'http://split.example/a.png' }).end();
      else res.writeHead(200, { 'content-type': 'image/png' }).end('png-bytes');
    });
    await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
    webPort = (web.address() as AddressInfo).port;
    // The proxies stand in for the internet: every tunnel ends at the local web server.
    http = await startHttpProxy(webPort);
    socks = await startSocksProxy(webPort);
  });
  afterEach(() => {
    paths.length = 0;
    http.seen.length = 0;
    socks.seen.length = 0;
  });
  after(async () => {
    await http.close();
    await socks.close();
    web.closeAllConnections();
    await new Promise<void>((done) => web.close(() => done()));
  });

  // The loopback proxies stand in for public ones (allowPrivateProxy); the URLs are still checked.
  const limits = { maxBytes: 1000, timeoutMs: 3000, allowPrivate: false };
  const accept = async (next: string) => new URL(next);

  it('HTTP CONNECT: the proxy is asked for the checked address with the credentials; the body comes back', async () => {
    const proxy = parseProxy(`http://u%40x:p%3Ass@127.0.0.1:${http.port}`);
    const answer = await guardedGet(new URL('http://cdn.example/a.png'), limits, accept, { proxy, resolve, allowPrivateProxy: true });
    assert.deepStrictEqual({ data: answer.data.toString(), mimetype: answer.mimetype }, { data: 'png-bytes', mimetype: 'image/png' });
    assert.deepStrictEqual(http.seen, [{ target: `${PUBLIC}:80`, authorization: `Basic ${Buffer.from('u@x:p:ss').toString('base64')}` }]);
    assert.deepStrictEqual(paths, ['/a.png']);
  });

  it('socks5h: the proxy gets the checked address, not the name its own resolver could rebind', async () => {
    const proxy = parseProxy(`socks5h://su:sp@127.0.0.1:${socks.port}`);
    await guardedGet(new URL('http://cdn.example/a.png'), limits, accept, { proxy, resolve, allowPrivateProxy: true });
    assert.deepStrictEqual(socks.seen, [{ host: PUBLIC, port: 80, user: 'su', password: 'sp' }]);
  });

  it('a redirect to a name with a private address is refused before the proxy is asked for it', async () => {
    const proxy = parseProxy(`http://127.0.0.1:${http.port}`);
    await assert.rejects(guardedGet(new URL('http://cdn.example/to-split'), limits, accept, { proxy, resolve, allowPrivateProxy: true }), (err) => {
      assert.ok(err instanceof GuardedGetError);
      assert.deepStrictEqual([err.failure, err.message], ['private_address', 'it points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)']);
      return true;
    });
    assert.deepStrictEqual(http.seen.map((s) => s.target), [`${PUBLIC}:80`]);
  });

  it('a proxy refusing the CONNECT is a network failure naming the proxy\'s answer', async () => {
    const refusing = await startHttpProxy(1);
    try {
      const proxy = parseProxy(`http://127.0.0.1:${refusing.port}`);
      await assert.rejects(guardedGet(new URL('http://cdn.example/a.png'), limits, accept, { proxy, resolve, allowPrivateProxy: true }), (err) => {
        assert.ok(err instanceof GuardedGetError);
        assert.deepStrictEqual([err.failure, err.message], ['network', `the proxy answered 502 to CONNECT ${PUBLIC}:80`]);
        return true;
      });
      assert.deepStrictEqual(paths, []);
    } finally {
      await refusing.close();
    }
  });
});
