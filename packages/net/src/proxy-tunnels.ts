import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { SocksClient, type SocksProxy } from 'socks';
import { CONNECT_TIMEOUT_MS, type OpenTunnel } from './tunnel-connector.js';

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/** Tunnels through an HTTP(S) proxy with `CONNECT host:port`, sending the URL's credentials as Basic auth. */
export function httpConnectTunnel(url: URL): OpenTunnel {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const credentials = url.username || url.password
    ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    : undefined;
  return (host, targetPort) => new Promise<Socket>((resolve, reject) => {
    const target = `${host.includes(':') ? `[${host}]` : host}:${targetPort}`;
    const req = request({
      host: bare(url.hostname), port, method: 'CONNECT', path: target, agent: false, timeout: CONNECT_TIMEOUT_MS,
      headers: { host: target, ...(credentials ? { 'proxy-authorization': credentials } : {}) },
    });
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
}

/**
 * Tunnels through a SOCKS proxy, reading the URL as `socks-proxy-agent` does for the WebSocket:
 * `socks4` and `socks5` resolve the destination here; `socks4a`, `socks5h` and bare `socks`
 * (version 5) let the proxy resolve it.
 */
export function socksTunnel(url: URL): OpenTunnel {
  const protocol = url.protocol.slice(0, -1);
  const type = protocol === 'socks4' || protocol === 'socks4a' ? 4 : 5;
  const resolveHere = protocol === 'socks4' || protocol === 'socks5';
  const proxy: SocksProxy = {
    host: bare(url.hostname),
    port: url.port ? Number(url.port) : 1080,
    type,
    ...(url.username ? { userId: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
  return async (host, port) => {
    // SOCKS4 carries IPv4 addresses only.
    const destination = resolveHere ? (await lookup(host, { family: type === 4 ? 4 : 0 })).address : host;
    const { socket } = await SocksClient.createConnection({ proxy, destination: { host: destination, port }, command: 'connect', timeout: CONNECT_TIMEOUT_MS });
    return socket;
  };
}
