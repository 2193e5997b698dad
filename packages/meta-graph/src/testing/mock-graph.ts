import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach } from 'node:test';

/** One request the mock received, with its body decoded. */
export interface RecordedGraphRequest {
  method: string;
  /** Path without the query string (`/v26.0/me/messages`). */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Parsed JSON body (undefined for empty or non-JSON bodies). */
  json?: unknown;
  /** Multipart fields: text fields as strings, files as `{fileName, type, data}`. */
  form?: Record<string, string | { fileName: string; type: string; data: Buffer }>;
}

/**
 * What the mock answers: a status and a JSON body, bytes (a Buffer, sent as they are with
 * `contentType`, as Meta's CDN serves attachments), or `hang` to never answer (time-out tests).
 */
export type GraphMockAnswer = { status: number; body: unknown; contentType?: string } | 'hang';

/** A local stand-in for the Graph API on 127.0.0.1, for tests. */
export interface MockGraph {
  /** Base URL to configure as `graphBaseUrl`. */
  readonly url: string;
  /** Every request, in arrival order. */
  readonly requests: RecordedGraphRequest[];
  /**
   * Answers `method path` with the given answers in turn; the last one repeats. Unrouted requests
   * get 404 with a Graph-shaped error.
   */
  on(method: string, path: string, ...answers: (GraphMockAnswer | ((request: RecordedGraphRequest) => GraphMockAnswer))[]): void;
  /** Forgets routes and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

type Answerer = GraphMockAnswer | ((request: RecordedGraphRequest) => GraphMockAnswer);

/** Starts a mock Graph API on an ephemeral loopback port. */
export async function startMockGraph(): Promise<MockGraph> {
  const graph = createMockGraph();
  await graph.listen();
  return graph;
}

/**
 * A mock Graph API for the enclosing suite (or file): listening before its first test, closed after
 * its last, with routes and recorded requests forgotten before each test. Its `url` is readable once
 * the suite runs.
 */
export function useMockGraph(): MockGraph {
  const graph = createMockGraph();
  before(() => graph.listen());
  after(() => graph.close());
  beforeEach(() => graph.reset());
  return graph;
}

function createMockGraph(): MockGraph & { listen(): Promise<void> } {
  const routes = new Map<string, Answerer[]>();
  const requests: RecordedGraphRequest[] = [];
  let port: number | undefined;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const rawBody = Buffer.concat(chunks);
        const recorded: RecordedGraphRequest = {
          method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, rawBody,
        };
        const type = req.headers['content-type'] ?? '';
        if (type.startsWith('application/json') && rawBody.length > 0) recorded.json = JSON.parse(rawBody.toString('utf8'));
        if (type.startsWith('multipart/form-data')) recorded.form = await parseForm(rawBody, type);
        requests.push(recorded);

        const queue = routes.get(`${recorded.method} ${recorded.path}`);
        const next = queue && queue.length > 1 ? queue.shift()! : queue?.[0];
        const answer = typeof next === 'function' ? next(recorded) : next;
        if (answer === 'hang') return;
        const { status, body, contentType } = answer ?? {
          status: 404, body: { error: { message: `mock has no route ${recorded.method} ${recorded.path}`, type: 'GraphMethodException', code: 100 } },
        };
        if (Buffer.isBuffer(body)) {
          res.writeHead(status, { 'content-type': contentType ?? 'application/octet-stream', 'content-length': String(body.length) });
          res.end(body);
          return;
        }
        res.writeHead(status, { 'content-type': contentType ?? 'application/json' });
        res.end(JSON.stringify(body));
      })();
    });
  });

  return {
    get url() {
      if (port === undefined) throw new Error('the mock Graph API is not listening yet');
      return `http://127.0.0.1:${port}`;
    },
    requests,
    async listen() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    },
    on(method, path, ...answers) {
      routes.set(`${method.toUpperCase()} ${path}`, answers);
    },
    reset() {
      routes.clear();
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

async function parseForm(rawBody: Buffer, contentType: string): Promise<RecordedGraphRequest['form']> {
  const form = await new Response(new Uint8Array(rawBody), { headers: { 'content-type': contentType } }).formData();
  const fields: NonNullable<RecordedGraphRequest['form']> = {};
  for (const [name, value] of form) {
    fields[name] = typeof value === 'string'
      ? value
      : { fileName: value.name, type: value.type, data: Buffer.from(await value.arrayBuffer()) };
  }
  return fields;
}
