import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Simulator } from '../simulator.js';
import { SimError } from '../network/errors.js';
import { routes } from './routes.js';
import { refuseUnknown } from './validate.js';

/** Largest control request body (JSON), far above any legitimate one. */
const MAX_BODY_BYTES = 256 * 1024;
/** A control request must arrive whole within this. */
const BODY_TIMEOUT_MS = 10_000;

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** A refusal as Parley's error model writes it: `{"status", "error": {"code", "message", "details"?}}`. */
function sendError(res: ServerResponse, error: SimError): void {
  const { code, details } = asValidation(error);
  const body = { code, message: error.message, ...(Object.keys(details).length > 0 ? { details } : {}) };
  send(res, error.status, { status: error.status, error: body });
}

/**
 * A 400 that names the request's field it refuses (`details.field`, one name or several) is Parley's
 * `validation_failed`: `details.fields` lists `{field, message}` with the field named from the root of
 * the request (`body.to`, `path.device`), and `details.reason` keeps the simulator's own code when it is
 * more precise than `invalid_request` (`invalid_change`, `invalid_timer`, …). Other refusals keep theirs.
 */
function asValidation(error: SimError): { code: string; details: Record<string, unknown> } {
  const { field, ...rest } = error.details;
  const names = typeof field === 'string' ? [field] : Array.isArray(field) ? field.filter((f): f is string => typeof f === 'string') : [];
  if (error.status !== 400 || names.length === 0) return { code: error.code, details: error.details };
  const fields = names.map((name) => ({ field: /^(body|path|query)(\.|$)/.test(name) ? name : `body.${name}`, message: error.message }));
  return { code: 'validation_failed', details: { ...rest, fields, ...(error.code !== 'invalid_request' ? { reason: error.code } : {}) } };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new SimError(413, 'payload_too_large', `bodies are limited to ${MAX_BODY_BYTES} bytes`, { limit: MAX_BODY_BYTES });
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => req.destroy(), BODY_TIMEOUT_MS);
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw new SimError(413, 'payload_too_large', `bodies are limited to ${MAX_BODY_BYTES} bytes`, { limit: MAX_BODY_BYTES });
      chunks.push(chunk);
    }
  } finally {
    clearTimeout(timer);
  }
  if (size === 0) return {};
  const type = String(req.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) throw new SimError(415, 'unsupported_media_type', 'send JSON with content-type application/json');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new SimError(400, 'malformed_json', 'the body is not valid JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new SimError(400, 'invalid_request', 'the body must be a JSON object', { field: 'body' });
  return body as Record<string, unknown>;
}

/**
 * The control API over HTTP: a thin JSON layer over `Simulator` (see README "Control API"), answering
 * refusals as Parley's error model does (`{"status","error":{"code","message","details"?}}`, 400
 * `validation_failed` with `details.fields`). It listens on loopback and has no authentication:
 * it is a test fixture, not something to expose.
 */
export async function startControlServer(simulator: Simulator, host = '127.0.0.1', port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const table = routes(simulator);
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://control');
      const path = url.pathname.replace(/\/+$/, '') || '/';
      const matches = table.map((route) => ({ route, params: route.pattern.exec(path) })).filter((m) => m.params);
      if (matches.length === 0) throw new SimError(404, 'route_not_found', `no route ${path}`, { path });
      const match = matches.find((m) => m.route.method === req.method);
      if (!match) {
        res.setHeader('allow', matches.map((m) => m.route.method).join(', '));
        throw new SimError(405, 'method_not_allowed', `${req.method} is not allowed on ${path}`, { path });
      }
      const { route } = match;
      const body = route.method === 'POST' ? await readJson(req) : {};
      const params = (match.params!.slice(1)).map((p) => decodeURIComponent(p));
      if (route.method === 'POST') refuseUnknown(typeof route.members === 'function' ? route.members(params) : route.members, body);
      const { status, body: answer } = await route.handle(params, body, url.searchParams);
      send(res, status, answer);
    })().catch((error: unknown) => {
      if (res.headersSent) return;
      sendError(res, error instanceof SimError ? error : new SimError(500, 'internal_error', 'the simulator failed to handle this request'));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host}:${bound}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
