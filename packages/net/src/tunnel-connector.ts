import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';

/** Limit of each proxy handshake and of the TLS handshake above it, like undici's own connect timeout. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** Opens a raw TCP stream to `host:port` through a proxy. */
export type OpenTunnel = (host: string, port: number) => Promise<Socket>;

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
 * An undici connector that opens every connection through `open` and starts TLS above it for
 * `https:` origins (`tls` adds options to that session, such as a CA).
 *
 * undici's own `ProxyAgent` is not used: when a proxy accepts the connection and closes it without
 * answering the CONNECT, undici 6 takes that for a recoverable socket error and retries at once,
 * without end. A connector error here always fails the request.
 */
export function tunnelConnector(open: OpenTunnel, tls?: ConnectionOptions): buildConnector.connector {
  const connect = async (options: buildConnector.Options): Promise<Socket> => {
    const hostname = options.hostname.replace(/^\[|\]$/g, '');
    const secure = options.protocol === 'https:';
    const socket = await open(hostname, options.port ? Number(options.port) : secure ? 443 : 80);
    return secure ? startTls(socket, options.servername || hostname, tls) : socket;
  };
  return (options, callback) => {
    connect(options).then((socket) => callback(null, socket), (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null));
  };
}
