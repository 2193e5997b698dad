import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { isParleyError, ParleyError, ValidationError, type Logger } from '@parley/core';
import { destroyAfterLinger } from '../http/early-answer.js';
import type { FailureLimiter } from '../http/failure-limiter.js';
import type { StreamHub } from './stream-hub.js';
import { readStreamRequest } from './stream-request.js';
import { WsTransport } from './stream-transport.js';

/** What the upgrade handler needs from the server. */
export interface StreamUpgradeDeps {
  hub: StreamHub;
  /** Installed webhook formats (`?format=`). */
  formats: ReadonlySet<string>;
  /** Checks the credentials: the instance of `key` (throws 404), or the admin token (throws 401) when `key` is undefined. Answers the instance id. */
  authenticate(key: string | undefined, authorization: string | undefined): Promise<string | undefined>;
  limiter: FailureLimiter;
  /** The client's address as the HTTP routes see it (`trust proxy` applied to `X-Forwarded-For`), which failed authentications count against. */
  clientAddress(req: IncomingMessage): string;
  isShuttingDown(): boolean;
  /**
   * A cluster node: answers true when it proxied the upgrade of an instance's stream to the node
   * owning the instance (which serves it), false when this node serves it.
   */
  relay?(instance: string, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<boolean>;
  logger: Logger;
}

/** Largest message a client may send (clients send nothing the server reads). */
const MAX_CLIENT_MESSAGE = 1024;

/**
 * Writes an HTTP error answer on a socket not upgraded, in the API's error model, and closes it: the
 * answer ends the server's side, and the socket is destroyed a moment later ({@link destroyAfterLinger}) whatever the
 * client does. An upgraded request has left the HTTP server, whose timeouts no longer apply: a client
 * keeping its side open would otherwise hold the connection for good.
 */
function refuse(socket: Duplex, err: ParleyError): void {
  const text = JSON.stringify({ status: err.status, error: err.details === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, details: err.details } });
  const retry = err.status === 429 && (err.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
  socket.end(`HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(text)}\r\nCache-Control: no-store\r\n${retry ? `Retry-After: ${retry}\r\n` : ''}Connection: close\r\n\r\n${text}`);
  destroyAfterLinger(socket);
}

/** The path and query of an upgrade's request target; a target that is no URL is the client's error (400). */
function targetOf(url: string | undefined): URL {
  try {
    return new URL(url ?? '/', 'http://parley.invalid');
  } catch {
    throw new ValidationError('the request target is not a valid URL');
  }
}

/** A percent-encoded path segment, decoded; a malformed encoding is the client's error (400). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ValidationError('path is not validly percent-encoded');
  }
}

/**
 * The `upgrade` listener of the HTTP server: `GET /{key}/events` and `GET /admin/events` as
 * WebSockets, authenticated, validated and admitted exactly as their SSE forms (the same JSON
 * errors, before the handshake), and counted against the caller's address when the credentials are
 * wrong. Any other path answers 404.
 */
export function streamUpgradeHandler(deps: StreamUpgradeDeps): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE, clientTracking: false });
  return (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    void (async () => {
      const url = targetOf(req.url);
      const match = /^\/([^/]+)\/events$/.exec(url.pathname);
      if (!match) throw new ParleyError(404, 'route_not_found', 'WebSocket upgrades are served on /{key}/events and /admin/events only');
      if (deps.isShuttingDown()) throw new ParleyError(503, 'shutting_down', 'the server is shutting down');
      const key = match[1] === 'admin' ? undefined : decodeSegment(match[1]!);
      const address = deps.clientAddress(req);
      let instance: string | undefined;
      try {
        instance = await deps.authenticate(key, req.headers.authorization);
      } catch (err) {
        // As the HTTP routes: a failure counts, and a blocked address answers 429 instead.
        if (!isParleyError(err) || !(err.status === 401 || err.code === 'instance_not_found')) throw err;
        const ms = deps.limiter.retryAfterMs(address) || (await deps.limiter.fail(address));
        if (ms <= 0) throw err;
        const seconds = Math.ceil(ms / 1000);
        throw new ParleyError(429, 'rate_limited', `too many failed authentications from this address; retry in ${seconds} s`, { retryAfterSeconds: seconds });
      }
      const request = readStreamRequest(Object.fromEntries(url.searchParams), req.headers['last-event-id'], deps.formats);
      // The client may have hung up while it was authenticated: its socket will not close again.
      if (socket.destroyed) return;
      if (instance !== undefined && deps.relay && (await deps.relay(instance, req, socket, head))) return;
      if (socket.destroyed) return;
      const slot = deps.hub.reserve(instance);
      let opened = false;
      // A handshake `ws` refuses (bad Sec-WebSocket-Key, …) answers 400 and never calls back: free the place.
      socket.once('close', () => {
        if (!opened) deps.hub.unreserve(slot);
      });
      wss.handleUpgrade(req, socket, head, (ws) => {
        opened = true;
        deps.hub.open(slot, new WsTransport(ws), { admin: key === undefined, ...(request.format ? { format: request.format } : {}) }, request.after);
      });
    })().catch((err: unknown) => {
      if (isParleyError(err)) return refuse(socket, err);
      deps.logger.error({ err }, 'WebSocket upgrade failed');
      refuse(socket, new ParleyError(500, 'internal_error', 'internal server error'));
    });
  };
}
