import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { SocksClient, type SocksProxy } from 'socks';
import { checkProxy, type ProxyGuard } from './proxy-guard.js';
import { CONNECT_TIMEOUT_MS, type OpenTunnel } from './tunnel-connector.js';

/**
 * Tunnels through an HTTP(S) proxy with `CONNECT host:port`, sending the URL's credentials as Basic
 * auth. Each tunnel dials the proxy's address checked by `guard` at that moment ({@link checkProxy});
 * an `https` proxy's certificate is still verified against its host name.
 */
export function httpConnectTunnel(url: URL, guard: ProxyGuard): OpenTunnel {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const credentials = url.username || url.password
    ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    : undefined;
  return async (host, targetPort) => {
    const proxy = await checkProxy(url, guard);
    const target = `${host.includes(':') ? `[${host}]` : host}:${targetPort}`;
    const req = request({
      host: proxy.address, port: proxy.port, ...(proxy.servername ? { servername: proxy.servername } : {}),
      method: 'CONNECT', path: target, agent: false, timeout: CONNECT_TIMEOUT_MS,
      headers: { host: target, ...(credentials ? { 'proxy-authorization': credentials } : {}) },
    });
    return new Promise<Socket>((resolve, reject) => {
      req.once('connect', (res, socket, head) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          reject(new Error(`the proxy answered ${res.statusCode ?? 'nothing'} to CONNECT ${target}`));
          return;
        }
        if (head.length > 0) socket.unshift(head);
        resolve(socket);
      });
      req.once('timeout', () => req.destroy(new Error(`the proxy did not answer CONNECT ${target} within ${CONNECT_TIMEOUT_MS / 1000}s`)));
      req.once('error', reject);
      req.end();
    });
  };
}

/**
 * Tunnels through a SOCKS proxy, reading the URL as `socks-proxy-agent` does for the WebSocket:
 * `socks4` and `socks5` resolve the destination here; `socks4a`, `socks5h` and bare `socks`
 * (version 5) let the proxy resolve it. Each tunnel dials the proxy's address checked by `guard`
 * at that moment ({@link checkProxy}).
 */
export function socksTunnel(url: URL, guard: ProxyGuard): OpenTunnel {
  const protocol = url.protocol.slice(0, -1);
  const type = protocol === 'socks4' || protocol === 'socks4a' ? 4 : 5;
  const resolveHere = protocol === 'socks4' || protocol === 'socks5';
  const account: Pick<SocksProxy, 'type' | 'userId' | 'password'> = {
    type,
    ...(url.username ? { userId: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
  return async (host, port) => {
    const checked = await checkProxy(url, guard);
    const proxy: SocksProxy = { host: checked.address, port: checked.port, ...account };
    // SOCKS4 carries IPv4 addresses only.
    const destination = resolveHere ? (await lookup(host, { family: type === 4 ? 4 : 0 })).address : host;
    const { socket } = await SocksClient.createConnection({ proxy, destination: { host: destination, port }, command: 'connect', timeout: CONNECT_TIMEOUT_MS });
    return socket;
  };
}
