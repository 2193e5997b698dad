import { lookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { SocksClient, type SocksProxy } from 'socks';
import type { buildConnector } from 'undici';

/** Handshake limit of the SOCKS exchange and of the TLS session above it, like undici's own connect timeout. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * What a SOCKS URL means, as `socks-proxy-agent` reads it for the WebSocket: `socks4` and `socks5`
 * resolve the destination here, `socks4a`, `socks5h` and bare `socks` (version 5) let the proxy resolve it.
 */
function socksProxy(url: URL): { proxy: SocksProxy; resolveHere: boolean } {
  const protocol = url.protocol.slice(0, -1);
  const type = protocol === 'socks4' || protocol === 'socks4a' ? 4 : 5;
  return {
    proxy: {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : 1080,
      type,
      ...(url.username ? { userId: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    },
    resolveHere: protocol === 'socks4' || protocol === 'socks5',
  };
}

function startTls(socket: Socket, servername: string, tls: ConnectionOptions | undefined): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    // SNI carries host names only.
    const secure = tlsConnect({ ...tls, socket, ...(isIP(servername) ? {} : { servername }), ALPNProtocols: ['http/1.1'] });
    const timer = setTimeout(() => secure.destroy(new Error(`TLS handshake with ${servername} timed out`)), CONNECT_TIMEOUT_MS);
    secure.once('secureConnect', () => {
      clearTimeout(timer);
      resolve(secure);
    });
    secure.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
  });
}

/**
 * An undici connector that opens each connection through a SOCKS proxy (undici has no SOCKS
 * support of its own), then starts TLS for `https:` origins. `tls` adds options to that TLS session.
 */
export function socksConnector(url: URL, tls?: ConnectionOptions): buildConnector.connector {
  const { proxy, resolveHere } = socksProxy(url);
  const open = async (options: buildConnector.Options): Promise<Socket> => {
    const hostname = options.hostname.replace(/^\[|\]$/g, '');
    const secure = options.protocol === 'https:';
    const port = options.port ? Number(options.port) : secure ? 443 : 80;
    // SOCKS4 carries IPv4 addresses only.
    const host = resolveHere ? (await lookup(hostname, { family: proxy.type === 4 ? 4 : 0 })).address : hostname;
    const { socket } = await SocksClient.createConnection({
      proxy, destination: { host, port }, command: 'connect', timeout: CONNECT_TIMEOUT_MS,
    });
    return secure ? startTls(socket, options.servername || hostname, tls) : socket;
  };
  return (options, callback) => {
    open(options).then((socket) => callback(null, socket), (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null));
  };
}
