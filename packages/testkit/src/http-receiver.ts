import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the receiver got it. */
export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  /** Exact body text (UTF-8). */
  body: string;
  /** Parsed body, or undefined when it is not JSON. */
  json: unknown;
  /** Unix ms when the body was complete. */
  time: number;
  /** 0-based arrival number on this receiver. */
  index: number;
}

/** How the receiver answers one request. Every member is optional: the default is an immediate 200. */
export interface ReceiverReply {
  status?: number;
  /** Waits this long before answering (a client with a shorter time-out sees a time-out). */
  delayMs?: number;
  /** Sent as the `Retry-After` header: seconds, or an HTTP date. */
  retryAfter?: number | string;
  headers?: Record<string, string>;
  body?: string;
  /** Destroys the connection instead of answering (after `delayMs`). */
  destroy?: boolean;
}

/**
 * Decides the reply to a request. May return a promise: the request stays open until it settles, which
 * lets a test hold a receiver (a gate) and release it later. It is called after the request is recorded.
 */
export type Responder = (request: ReceivedRequest) => ReceiverReply | Promise<ReceiverReply>;

/** A real HTTP server on the loopback interface that records every request. */
export interface HttpReceiver {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Every request received so far, in arrival order (kept across {@link down}/{@link up}). */
  readonly requests: ReceivedRequest[];
  /** Sets the responder (a fixed reply or a function). */
  respond(responder: Responder | ReceiverReply): void;
  /** Resolves with the requests once at least `count` arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening and drops open connections: clients get connection refused. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Stops for good. Idempotent. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Starts a recording HTTP receiver on 127.0.0.1 (port 0 picks a free one). Tests use it as the real
 * webhook endpoint: they program failures (status, Retry-After, delays, dropped connections) and read
 * back exactly what arrived.
 */
export async function startHttpReceiver(options: { port?: number } = {}): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<{ count: number; resolve: () => void }>();
  const sockets = new Set<Socket>();
  let responder: Responder = () => ({});

  const reply = async (request: ReceivedRequest, res: ServerResponse) => {
    const answer = await responder(request);
    if (answer.delayMs) await sleep(answer.delayMs);
    if (answer.destroy) {
      res.socket?.destroy();
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', ...answer.headers };
    if (answer.retryAfter !== undefined) headers['retry-after'] = String(answer.retryAfter);
    res.writeHead(answer.status ?? 200, headers).end(answer.body ?? '{"ok":true}');
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const request: ReceivedRequest = {
        method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json, time: Date.now(), index: requests.length,
      };
      requests.push(request);
      for (const waiter of waiters) if (requests.length >= waiter.count) waiter.resolve();
      reply(request, res).catch(() => res.socket?.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const stop = () => new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    for (const socket of sockets) socket.destroy();
  });

  await listen(options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  let closed = false;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    respond(next) {
      responder = typeof next === 'function' ? next : () => next;
    },
    waitFor(count, timeoutMs = 10_000) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(requests.slice());
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`receiver got ${requests.length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    down: stop,
    async up() {
      if (closed) throw new Error('receiver is closed');
      if (!server.listening) await listen(port);
    },
    async close() {
      closed = true;
      await stop();
    },
  };
}
