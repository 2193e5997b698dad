import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '@parley/core';
import { redactPath, unmatchedPath } from '../logging/logger.js';
import { DOCS_HTML, DOCS_INIT_JS, swaggerUiDir } from './docs-page.js';
import { errorHandler, sendError } from './error-handler.js';
import { buildOpenApi } from './openapi.js';
import { defineRoute, TextReply, type RouteDefinition } from './route.js';
import { jsonBody } from './json-body.js';
import type { RouteTable } from './route-table.js';
import { UndeclaredAnswers } from './route-statuses.js';
import { routeMiddleware, type MatchedRequest, type ScopeResolver } from './router.js';

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  routes: RouteDefinition[];
  resolveScope: ScopeResolver;
  logger: Logger;
  bodyLimitBytes: number;
  version: string;
  /** Refuses new requests with 503 while shutting down. */
  isShuttingDown: () => boolean;
  /** Resolves when every write so far is durable (awaited before answering non-GET requests). */
  durable: () => Promise<void>;
}

/** What `/openapi.json` answers: an OpenAPI 3.1 document (its own schema is the OpenAPI specification's). */
const OPENAPI_DOCUMENT = {
  type: 'object',
  description: 'An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0).',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object', required: ['title', 'version'], properties: { title: { type: 'string' }, version: { type: 'string' } } },
    paths: { type: 'object' },
    components: { type: 'object' },
    tags: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
  },
};

const STATIC_PREFIXES = new Set(['admin', 'docs', 'openapi.json', 'healthz', 'readyz']);

/** Builds the express app: JSON parsing with raw-body capture, routes, docs, 404 and the error model. */
export function createHttpApp(options: HttpAppOptions): {
  app: Express; openapi: Record<string, unknown>; routes: RouteDefinition[]; table: RouteTable<unknown>; undeclared: UndeclaredAnswers;
} {
  const { routes, logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const prefixes = new Set([...STATIC_PREFIXES, ...routes.map((r) => r.path.split('/')[1]!).filter((p) => !p.startsWith('{'))]);

  const docs: RouteDefinition[] = [
    defineRoute({
      method: 'get', path: '/openapi.json', operationId: 'openapi', tag: 'Operations', auth: 'public',
      summary: 'This OpenAPI 3.1 document', response: { text: 'application/json', schema: OPENAPI_DOCUMENT },
      handler: async () => new TextReply(openapiText, 'application/json; charset=utf-8'),
    }),
    defineRoute({
      method: 'get', path: '/docs', operationId: 'docs', tag: 'Operations', auth: 'public',
      summary: 'Browsable API documentation (Swagger UI, served offline)', response: { text: 'text/html' },
      handler: async () => new TextReply(DOCS_HTML, 'text/html; charset=utf-8'),
    }),
    defineRoute({
      method: 'get', path: '/docs/init.js', operationId: 'docsInit', tag: 'Operations', auth: 'public',
      summary: 'Start-up script of the documentation page', response: { text: 'application/javascript' },
      handler: async () => new TextReply(DOCS_INIT_JS, 'application/javascript; charset=utf-8'),
    }),
  ];
  const all = [...routes, ...docs];
  const undeclared = new UndeclaredAnswers();
  const openapi = buildOpenApi(all, { version: options.version });
  const openapiText = JSON.stringify(openapi);
  const { middleware: serveRoute, table } = routeMiddleware(all, options.resolveScope, options.durable);
  const readBody = jsonBody(options.bodyLimitBytes);

  // One middleware for the hot path (shutdown check, request log, body, route): every layer express
  // walks costs each request a `next()` round.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (options.isShuttingDown()) {
      res.set('Connection', 'close');
      sendError(res, 503, 'shutting_down', 'the server is shutting down');
      return;
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // A matched route logs its template (`/admin/instances/:key`, `/sandbox/:key/scan`): keys may sit in any segment.
      const path = (req as MatchedRequest).parleyRoute ?? unmatchedPath(req.path, (seg) => prefixes.has(seg));
      const line = { method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 };
      const declared = (req as MatchedRequest).parleyStatuses;
      if (declared && !declared.has(res.statusCode) && undeclared.note(req.method, path, res.statusCode)) {
        logger.error(line, 'answer status not declared for this route in the OpenAPI document');
      }
      // Successful calls are debug-level: at gateway volumes an info line per send costs throughput.
      if (res.statusCode >= 500) logger.error(line, 'request');
      else if (res.statusCode >= 400) logger.info(line, 'request');
      else logger.debug(line, 'request');
    });
    readBody(req, res, (err?: unknown) => (err ? next(err) : serveRoute(req, res, next)));
  });

  app.use('/docs/assets', express.static(swaggerUiDir(), { index: false, fallthrough: false }));

  app.use((req: Request, res: Response) => {
    sendError(res, 404, 'route_not_found', `no route ${req.method} ${redactPath(req.path, (seg) => prefixes.has(seg))}`);
  });
  app.use(errorHandler(logger));
  return { app, openapi, routes: all, table, undeclared };
}
