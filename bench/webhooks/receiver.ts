/**
 * The benchmark's webhook receiver, run in its own process (forked with IPC by webhooks.bench.ts): a
 * bare node:http server on 127.0.0.1 that reads each body and answers 200 over keep-alive. It records
 * when each request's body ended (absolute ms, comparable across processes) by its `webhook-id`.
 *
 * Given a native event `type` as its argument (bench/whatsapp-sim: `message`), it records only the
 * deliveries of that type and answers the others without recording them.
 *
 * IPC commands: {cmd:'expect', count} answers {cmd:'reached'} once `count` requests arrived since the
 * last reset; {cmd:'dump'} answers {cmd:'times', times: [id, ms][]}; {cmd:'reset'}; {cmd:'down'} and
 * {cmd:'up'} stop and resume listening on the same port (clients get connection refused meanwhile);
 * {cmd:'capture', on} starts (and empties) or stops keeping every request's path, headers and body,
 * which {cmd:'captured'} answers as {cmd:'requests', requests} (bench/webhooks' whole-path run
 * re-POSTs them with a bare client).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

type Command = { cmd: 'expect'; count: number } | { cmd: 'dump' } | { cmd: 'reset' } | { cmd: 'down' } | { cmd: 'up' } | { cmd: 'capture'; on: boolean } | { cmd: 'captured' };

/** A request as received: what a bare client needs to send it again. */
export interface CapturedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

const now = () => performance.timeOrigin + performance.now();
let times: [string, number][] = [];
let expected = Infinity;
let captured: CapturedRequest[] | null = null;
const sockets = new Set<Socket>();
const send = (message: unknown) => process.send!(message);

const only = process.argv[2];
const server: Server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => (only || captured) && chunks.push(chunk));
  req.on('end', () => {
    if (captured) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
      captured.push({ path: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') });
    }
    if (only && (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string }).type !== only) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
      return;
    }
    times.push([String(req.headers['webhook-id'] ?? ''), now()]);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
    if (times.length >= expected) {
      expected = Infinity;
      send({ cmd: 'reached' });
    }
  });
});
server.keepAliveTimeout = 65_000;
server.on('connection', (socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});

const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

await listen(0);
const { port } = server.address() as AddressInfo;
process.on('message', (message: Command) => {
  switch (message.cmd) {
    case 'expect':
      expected = message.count;
      if (times.length >= expected) {
        expected = Infinity;
        send({ cmd: 'reached' });
      }
      break;
    case 'dump':
      send({ cmd: 'times', times });
      break;
    case 'reset':
      times = [];
      break;
    case 'down':
      server.close(() => send({ cmd: 'isDown' }));
      for (const socket of sockets) socket.destroy();
      break;
    case 'up':
      void listen(port).then(() => send({ cmd: 'isUp' }));
      break;
    case 'capture':
      captured = message.on ? [] : null;
      break;
    case 'captured':
      send({ cmd: 'requests', requests: captured ?? [] });
      break;
  }
});
process.on('disconnect', () => process.exit(0));
send({ cmd: 'listening', port });
