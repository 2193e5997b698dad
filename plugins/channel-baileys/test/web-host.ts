import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { LocalServer } from '@parley/testkit';
import { listenOnLoopback } from '../src/testing/loopback-server.js';

/** Answers one path of a {@link startWebHost}. */
export type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A file of `type` with `body`. */
export const file = (type: string, body: Buffer): Route => (_req, res) => {
  res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
};

/** A redirect to `location`. */
export const redirect = (location: string): Route => (_req, res) => {
  res.writeHead(302, { location, 'content-length': 0 }).end();
};

/**
 * A plain HTTP server on 127.0.0.1 standing in for every web host of a test (a proxy tunnels to it,
 * or the test allows private URLs). `seen` lists the paths asked for; unknown paths answer 404.
 */
export async function startWebHost(routes: Record<string, Route>): Promise<LocalServer<string>> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const route = routes[req.url ?? ''];
    if (route) route(req, res);
    else res.writeHead(404, { 'content-length': 0 }).end();
  });
  return { ...(await listenOnLoopback(server)), seen };
}

export { fixedResolver } from '../src/testing/index.js';

/** Records every URL handed to the global `fetch` (Baileys' only way to download) until `restore`. */
export function spyOnFetch(): { urls: string[]; restore(): void } {
  const real = globalThis.fetch;
  const urls: string[] = [];
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    urls.push(String(input instanceof Request ? input.url : input));
    return real(input, init);
  }) as typeof fetch;
  return { urls, restore: () => { globalThis.fetch = real; } };
}
