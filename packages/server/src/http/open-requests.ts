import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { MatchedRequest } from './router.js';

/**
 * The requests a server is answering now. A graceful stop that has to close connections at
 * `shutdownTimeoutMs` names the requests that held it: a request that never ends is logged nowhere else
 * (the request log line is written when the answer is).
 */
export class OpenRequests {
  private readonly open = new Map<ServerResponse, { req: IncomingMessage; at: number }>();

  /** Follows every request of `server` until its answer ends or its connection closes. */
  track(server: Server): void {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.open.set(res, { req, at: performance.now() });
      res.once('close', () => this.open.delete(res));
    });
  }

  /**
   * One line naming each open request: method, route template (never the path, which may carry an
   * instance key), the node that forwarded it, its request id and its age.
   */
  describe(): string {
    const now = performance.now();
    return [...this.open.values()].map(({ req, at }) => {
      const route = (req as unknown as MatchedRequest).parleyRoute ?? 'unmatched route';
      const by = req.headers['x-parley-forwarded-by'];
      const id = req.headers['x-request-id'];
      return `${req.method} ${route}${by ? ` forwarded by ${String(by)}` : ''}${id ? ` (request ${String(id)})` : ''} open ${Math.round(now - at)} ms`;
    }).join('; ');
  }

  get size(): number {
    return this.open.size;
  }
}
