import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startCountingListener, startHttpProxy, startSocksProxy, type ConnectSeen, type CountingListener, type LocalServer, type SocksSeen } from '@parley/testkit';
import { checkProxy, guardedGet, GuardedGetError, parseProxy, PRIVATE_PROXY, type ResolveHost } from '../src/index.js';

const PUBLIC = '93.184.215.14';
const REFUSED = 'the proxy proxy.example points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)';

describe('an instance proxy is checked when it is dialled, not only when it is saved', () => {
  let web: Server;
  let http: LocalServer<ConnectSeen>;
  let socks: LocalServer<SocksSeen>;
  let listener: CountingListener;
  /** What the names resolve to now; a test changes it between lookups (DNS rebinding). */
  let names: Record<string, string[]>;
  const lookups: string[] = [];
  const resolve: ResolveHost = async (host) => {
    lookups.push(host);
    const found = names[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

  before(async () => {
    web = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('png-bytes'));
    await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
    const webPort = (web.address() as AddressInfo).port;
    // The proxies stand in for the internet: every tunnel ends at the local web server.
    http = await startHttpProxy(webPort);
    socks = await startSocksProxy(webPort);
    listener = await startCountingListener();
  });
  afterEach(() => {
    lookups.length = 0;
    http.seen.length = 0;
    socks.seen.length = 0;
  });
  after(async () => {
    await http.close();
    await socks.close();
    await listener.close();
    web.closeAllConnections();
    await new Promise<void>((done) => web.close(() => done()));
  });

  const accept = async (next: string) => new URL(next);
  const get = (proxy: string, allowPrivate: boolean) =>
    guardedGet(new URL('http://cdn.example/a.png'), { maxBytes: 1000, timeoutMs: 3000, allowPrivate }, accept, { proxy: parseProxy(proxy), resolve });

  for (const scheme of ['http', 'https', 'socks5h', 'socks4']) {
    it(`${scheme}: a proxy name resolving to a private address when dialled is refused; nothing connects to it`, async () => {
      // Public when the URL was saved, loopback now.
      names = { 'cdn.example': [PUBLIC], 'proxy.example': [PUBLIC] };
      assert.equal((await checkProxy(new URL(`${scheme}://proxy.example:${listener.port}`), { allowPrivate: false, resolve })).address, PUBLIC);
      names['proxy.example'] = ['127.0.0.1'];
      await assert.rejects(get(`${scheme}://u:p@proxy.example:${listener.port}`, false), (err) => {
        assert.ok(err instanceof GuardedGetError);
        assert.deepStrictEqual([err.failure, err.message], ['private_proxy', REFUSED]);
        return true;
      });
      assert.deepStrictEqual(lookups, ['proxy.example', 'cdn.example', 'proxy.example']);
      assert.equal(listener.connections(), 0);
    });
  }

  it('a name with any private address among public ones is refused, and so is a private literal', async () => {
    names = { 'cdn.example': [PUBLIC], 'proxy.example': [PUBLIC, '10.0.0.7'] };
    await assert.rejects(get(`http://proxy.example:${listener.port}`, false), { failure: 'private_proxy', message: REFUSED });
    await assert.rejects(get(`socks5://[::1]:${listener.port}`, false), {
      failure: 'private_proxy', message: 'the proxy ::1 points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)',
    });
    assert.equal(listener.connections(), 0);
  });

  it('with private addresses allowed, an HTTP proxy is dialled at the address its name resolves to', async () => {
    names = { 'cdn.example': [PUBLIC], 'proxy.example': ['127.0.0.1'] };
    const answer = await get(`http://u:p@proxy.example:${http.port}`, true);
    assert.equal(answer.data.toString(), 'png-bytes');
    assert.deepStrictEqual(http.seen, [{ target: `${PUBLIC}:80`, authorization: `Basic ${Buffer.from('u:p').toString('base64')}` }]);
    assert.deepStrictEqual(lookups, ['cdn.example', 'proxy.example']);
  });

  it('with private addresses allowed, a SOCKS proxy is dialled at the address its name resolves to', async () => {
    names = { 'cdn.example': [PUBLIC], 'proxy.example': ['127.0.0.1'] };
    const answer = await get(`socks5h://su:sp@proxy.example:${socks.port}`, true);
    assert.equal(answer.data.toString(), 'png-bytes');
    assert.deepStrictEqual(socks.seen, [{ host: PUBLIC, port: 80, user: 'su', password: 'sp' }]);
  });

  it('checkProxy answers the address to dial, the default port, and the host name an https proxy\'s certificate must match', async () => {
    names = { 'proxy.example': ['2001:db8::1', PUBLIC] };
    // 2001:db8::/32 is documentation space: private, so allowed only with allowPrivate.
    await assert.rejects(checkProxy(new URL('https://proxy.example'), { allowPrivate: false, resolve }), { code: PRIVATE_PROXY, message: REFUSED });
    const checked = await checkProxy(new URL('https://u:p@proxy.example'), { allowPrivate: true, resolve });
    assert.deepStrictEqual({ ...checked, url: checked.url.href }, { address: '2001:db8::1', port: 443, servername: 'proxy.example', url: 'https://u:p@[2001:db8::1]/' });
    const literal = await checkProxy(new URL(`socks5://${PUBLIC}`), { allowPrivate: false, resolve });
    assert.deepStrictEqual({ ...literal, url: literal.url.href }, { address: PUBLIC, port: 1080, url: `socks5://${PUBLIC}` });
    assert.deepStrictEqual(lookups, ['proxy.example', 'proxy.example']);
  });
});
