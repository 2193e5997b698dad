import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A load balancer without affinity, as far as HTTP goes: each request goes to the next of `targets`
 * in turn (whatever connection it came on), with its method, path, headers and body; the answer comes
 * back as it is, streamed (an event stream stays open). `sentTo` records which target got each one.
 */
export class RoundRobinProxy {
  readonly sentTo: { method: string; target: string }[] = [];
  private next = 0;

  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(targets: string[]): Promise<RoundRobinProxy> {
    let proxy: RoundRobinProxy | undefined;
    const server = createServer((req, res) => {
      const target = new URL(targets[proxy!.next++ % targets.length]!);
      proxy!.sentTo.push({ method: req.method ?? '', target: target.origin });
      const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.once('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      res.once('close', () => upstream.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new RoundRobinProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxy;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
