import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A listening server and what it saw. */
export interface LocalServer<Seen> {
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

async function listen<S extends Server | HttpServer>(server: S): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function closer(server: Server | HttpServer, sockets: Set<Socket>): () => Promise<void> {
  return async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  };
}

function track(server: Server | HttpServer): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return sockets;
}

/**
 * Joins a client socket to the local target both ways; the target stands in for every remote host.
 * When the target cannot be reached the client gets `refused`, or is dropped without an answer.
 */
function tunnel(client: Socket, targetPort: number, head: Buffer, established: Buffer, refused?: Buffer): void {
  const upstream = connect(targetPort, '127.0.0.1', () => {
    client.write(established);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => {
    if (refused) client.end(refused);
    else client.destroy();
  });
  client.on('error', () => upstream.destroy());
}

/**
 * An HTTPS "media host" for `mmg.whatsapp.net` (certificate in test/fixtures): answers `body` for
 * every GET and records the paths asked for.
 */
export async function startMediaHost(tls: { key: string; cert: string }, body: Buffer): Promise<LocalServer<string>> {
  const seen: string[] = [];
  const server = createHttpsServer(tls, (req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    res.end(body);
  });
  const sockets = track(server);
  return { port: await listen(server), seen, close: closer(server, sockets) };
}

/** A CONNECT request an HTTP proxy received. */
export interface ConnectSeen {
  target: string;
  authorization: string | undefined;
}

/**
 * An HTTP proxy that tunnels every CONNECT to `targetPort` on 127.0.0.1 and refuses plain requests.
 * An unreachable target is answered 502, or with `drop` the connection is closed without an answer.
 */
export async function startHttpProxy(targetPort: number, options: { drop?: boolean } = {}): Promise<LocalServer<ConnectSeen>> {
  const seen: ConnectSeen[] = [];
  const server = createHttpServer((_req, res) => {
    res.writeHead(405).end();
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push({ target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    const refused = options.drop ? undefined : Buffer.from('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
    tunnel(client, targetPort, head, Buffer.from('HTTP/1.1 200 Connection Established\r\n\r\n'), refused);
  });
  const sockets = track(server);
  return { port: await listen(server), seen, close: closer(server, sockets) };
}

/** A SOCKS5 CONNECT request a SOCKS proxy received. */
export interface SocksSeen {
  host: string;
  port: number;
  user: string | undefined;
  password: string | undefined;
}

/** Reads exactly `n` bytes from a paused socket. */
async function read(socket: Socket, n: number): Promise<Buffer> {
  for (;;) {
    const chunk = socket.read(n) as Buffer | null;
    if (chunk) return chunk;
    if (socket.destroyed || socket.readableEnded) throw new Error('SOCKS client went away');
    await once(socket, 'readable');
  }
}

async function socksHandshake(client: Socket, seen: SocksSeen[]): Promise<void> {
  const [version, methodCount] = await read(client, 2);
  if (version !== 5) throw new Error('not SOCKS5');
  const methods = [...(await read(client, methodCount!))];
  let user: string | undefined;
  let password: string | undefined;
  if (methods.includes(2)) {
    // RFC 1929 username/password sub-negotiation.
    client.write(Buffer.from([5, 2]));
    const [, userLength] = await read(client, 2);
    user = (await read(client, userLength!)).toString();
    const [passwordLength] = await read(client, 1);
    password = (await read(client, passwordLength!)).toString();
    client.write(Buffer.from([1, 0]));
  } else {
    client.write(Buffer.from([5, 0]));
  }
  const [, command, , addressType] = await read(client, 4);
  if (command !== 1) throw new Error('only CONNECT is supported');
  let host: string;
  if (addressType === 3) host = (await read(client, (await read(client, 1))[0]!)).toString();
  else if (addressType === 1) host = [...(await read(client, 4))].join('.');
  else throw new Error('IPv6 destinations are not supported here');
  const port = (await read(client, 2)).readUInt16BE(0);
  seen.push({ host, port, user, password });
}

/** A SOCKS5 proxy (no auth or username/password) that connects every CONNECT to `targetPort` on 127.0.0.1. */
export async function startSocksProxy(targetPort: number): Promise<LocalServer<SocksSeen>> {
  const seen: SocksSeen[] = [];
  const server = createTcpServer({ pauseOnConnect: true }, (client) => {
    socksHandshake(client, seen).then(
      () => tunnel(client, targetPort, Buffer.alloc(0), Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0])),
      () => client.destroy(),
    );
  });
  const sockets = track(server);
  return { port: await listen(server), seen, close: closer(server, sockets) };
}
