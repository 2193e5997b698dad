import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { MatchedRequest } from './router.js';

/**
 * The requests a server is answering now, and its open connections. A graceful stop that has to close connections at
 * `shutdownTimeoutMs` names the requests that held it: a request that never ends is logged nowhere else
 * (the request log line is written when the answer is).
 */
export class OpenRequests {
  private readonly open = new Map<ServerResponse, { req: IncomingMessage; at: number }>();
  private readonly sockets = new Set<Socket>();

  /** Follows every request of `server` until its answer ends or its connection closes. */
  track(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.open.set(res, { req, at: performance.now() });
      res.once('close', () => this.open.delete(res));
    });
  }

  /**
   * One line naming each open request — method, route template (never the path, which may carry an
   * instance key), the node that forwarded it, its request id, its age — and each other open connection.
   */
  describe(): string {
    const now = performance.now();
    const requests = [...this.open.values()].map(({ req, at }) => {
      const route = (req as unknown as MatchedRequest).parleyRoute ?? 'unmatched route';
      const by = req.headers['x-parley-forwarded-by'];
      const id = req.headers['x-request-id'];
      return `${req.method} ${route}${by ? ` forwarded by ${String(by)}` : ''}${id ? ` (request ${String(id)})` : ''} open ${Math.round(now - at)} ms`;
    });
    // A connection can hold a stop with no request open: one whose next request has only begun to arrive.
    const busy = new Set([...this.open.values()].map(({ req }) => req.socket));
    const bare = [...this.sockets].filter((s) => !busy.has(s))
      .map((s) => `connection from ${s.remoteAddress}:${s.remotePort} without an open request (${s.bytesRead} B read, ${s.bytesWritten} B written)`);
    return [...requests, ...bare].join('; ');
  }

  /**
   * Closes the connections no request has begun on (not a byte read). A stop needs this beside Node's
   * `closeIdleConnections`, which leaves such a connection open — it counts as waiting for its first
   * request, until `headersTimeout` — so the stop waited for it until `shutdownTimeoutMs`.
   */
  closeUnused(): void {
    for (const socket of this.sockets) if (socket.bytesRead === 0) socket.destroy();
  }

  /** Requests being answered and connections open. */
  get size(): number {
    return this.sockets.size;
  }
}
