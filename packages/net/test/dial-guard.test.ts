import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { SocksClient } from 'socks';
import { startCountingListener, type CountingListener } from '@parley/testkit';
import { DialGuard, type DialGuardClient } from '../src/index.js';

const PUBLIC = '93.184.215.14';

/** Opens a SOCKS5 CONNECT through `client`'s relay; answers the socket, or the error the relay's refusal raises. */
function through(client: DialGuardClient, host: string, port: number, password = client.proxy.password): Promise<Socket> {
  const { proxy } = client;
  return SocksClient.createConnection({
    proxy: { host: proxy.host, port: proxy.port, type: 5, userId: proxy.username, password },
    destination: { host, port }, command: 'connect', timeout: 2000,
  }).then(({ socket }) => socket);
}

/**
 * The DialGuard is the proxy a library that dials on its own (the MongoDB driver) is given: it
 * dials only public addresses, resolving names itself, and only for the credentials it handed out.
 */
describe('DialGuard: a loopback SOCKS5 relay that dials public addresses only', () => {
  let echo: Server;
  let echoPort: number;
  let listener: CountingListener;
  /** What names resolve to now; a test changes it (DNS rebinding). */
  const names: Record<string, string[]> = {};
  const guard = new DialGuard({
    resolve: async (host) => names[host] ?? [],
    // The public address stands for the internet: it reaches the echo server on loopback.
    dial: (address, port) => (address === PUBLIC ? connect(echoPort, '127.0.0.1') : connect({ host: address, port })),
  });

  before(async () => {
    echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    echoPort = (echo.address() as AddressInfo).port;
    listener = await startCountingListener();
  });
  after(async () => {
    await listener.close();
    await new Promise((resolve) => echo.close(resolve));
  });

  it('relays to a public name at the address it checked, and refuses private literals and names without dialling', async () => {
    const client = await guard.client();
    try {
      names['db.example'] = [PUBLIC];
      const socket = await through(client, 'db.example', 27017);
      socket.write('ping');
      const echoed = await new Promise<string>((resolve) => socket.once('data', (data) => resolve(String(data))));
      assert.equal(echoed, 'ping');
      socket.destroy();
      assert.equal(client.lastRefusal(), undefined);

      for (const host of ['127.0.0.1', '::1', '10.0.0.7', '169.254.169.254']) {
        await assert.rejects(through(client, host, listener.port), /Socks5 proxy rejected connection - NotAllowed/, host);
      }
      assert.match(client.lastRefusal() ?? '', /^169\.254\.169\.254:\d+ is a private network address$/);
      // A name that resolves privately now (it was public when the URI was checked): refused, not dialled.
      names['db.example'] = ['127.0.0.1'];
      await assert.rejects(through(client, 'db.example', listener.port), /NotAllowed/);
      assert.equal(client.lastRefusal(), 'db.example resolves to a private address (127.0.0.1)');
      names['mixed.example'] = [PUBLIC, '10.1.2.3'];
      await assert.rejects(through(client, 'mixed.example', listener.port), /NotAllowed/);
      assert.equal(listener.connections(), 0);
    } finally {
      await client.release();
    }
  });

  it('refuses wrong credentials and released clients; stops listening once no client is left', async () => {
    names['db.example'] = [PUBLIC];
    const first = await guard.client();
    const second = await guard.client();
    assert.equal(first.proxy.port, second.proxy.port, 'one relay for both clients');
    await assert.rejects(through(first, 'db.example', 27017, second.proxy.password), /Socks5 Authentication failed/);
    const open = await through(second, 'db.example', 27017);
    const closed = new Promise((resolve) => open.once('close', resolve));
    await second.release();
    await closed; // its relayed connection is closed with it
    await assert.rejects(through(second, 'db.example', 27017), /Socks5 Authentication failed/);
    await first.release();
    await assert.rejects(through(first, 'db.example', 27017), /ECONNREFUSED/);
  });
});
