import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { LogThrottle, ParleyError, type Logger } from '@parley/core';
import { redactPath, unmatchedPath } from '../logging/logger.js';
import { DASHBOARD_PATH, dashboardRouter, findDashboard, type DashboardFiles } from './dashboard.js';
import { DOCS_HTML, DOCS_INIT_JS, swaggerUiDir } from './docs-page.js';
import { guideRoutes } from './guide-routes.js';
import { findDocs, type DocsFiles } from './guides.js';
import { errorHandler, sendError, UNAUTHENTICATED_LOG_MS } from './error-handler.js';
import { boundIntegers } from './integer-bounds.js';
import { buildOpenApi } from './openapi.js';
import { defineRoute, isKeyed, readsBody, TextReply, type ErrorEnvelope, type RouteDefinition } from './route.js';
import { jsonBody } from './json-body.js';
import { publicBodyReader } from './public-body.js';
import type { PublicBodiesConfig } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { okResponse, s } from './schema.js';
import type { RouteTable } from './route-table.js';
import { UndeclaredAnswers } from './route-statuses.js';
import type { FailureLimiter } from './failure-limiter.js';
import type { IdempotencyGuard } from './idempotency.js';
import { UNMATCHED_ROUTE, type ServerMetrics } from '../metrics/server-metrics.js';
import { bodyLimitOf, routeMiddleware, type MatchedRequest, type ScopeResolver } from './router.js';

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  routes: RouteDefinition[];
  resolveScope: ScopeResolver;
  logger: Logger;
  /** Body limit of JSON-only routes. */
  bodyLimitBytes: number;
  /** Body limit of routes declaring `bodyLimit: 'media'` (base64 media inline). */
  mediaBodyLimitBytes: number;
  /** Bounds of bodies read before their caller is authenticated (public routes). */
  publicBodies: PublicBodiesConfig;
  /** Counts failed authentications per client address. */
  limiter: FailureLimiter;
  /** Express's `trust proxy` setting (which `X-Forwarded-For` hops name the client address). */
  trustProxy: boolean | number | string;
  version: string;
  /** Refuses new requests with 503 while shutting down. */
  isShuttingDown: () => boolean;
  /** Resolves when every write so far is durable (awaited before answering non-GET requests). */
  durable: () => Promise<void>;
  /** Serves the `Idempotency-Key` header of routes that create something. */
  idempotency: IdempotencyGuard;
  /** Observes each request's duration by method, route template and status. */
  metrics?: ServerMetrics;
  /** The built dashboard served at `/dashboard` (default: found with {@link findDashboard}). */
  dashboard?: DashboardFiles;
  /** The repository's `docs/`, rendered under `/docs/guides` and `/docs/reference` (default: found with {@link findDocs}). */
  docs?: DocsFiles;
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
/** Client errors logged at debug: lookups that found nothing, refused credentials, rate-limited callers. */
const QUIET_FAILURES = new Set([401, 404, 429]);

const STATIC_PREFIXES = new Set(['admin', 'docs', 'openapi.json', 'healthz', 'readyz', DASHBOARD_PATH.slice(1)]);

/** A segment that may be an instance key (keys are 32 base64url characters): never echoed. */
const KEY_LIKE = /^[A-Za-z0-9_-]{16,}$/;

/**
 * The message of a 404 for an unmatched path. Under a known prefix or a possible key it names the
 * route asked for, the key redacted (`no route GET /:key/nothing`); a first segment that can be no
 * key (`/favicon.ico`, `/robots.txt`) is an unknown path, said plainly, with where the API is described.
 */
function notFoundMessage(method: string, path: string, isKnownPrefix: (segment: string) => boolean): string {
  const first = /^\/([^/]+)(\/.*)?$/.exec(path);
  if (!first || isKnownPrefix(first[1]!) || KEY_LIKE.test(first[1]!)) return `no route ${method} ${redactPath(path, isKnownPrefix)}`;
  return `unknown path ${method} /${first[1]}${first[2] ? '/…' : ''}: Parley serves /{key}/… (instance API) and /admin/…; see /docs`;
}

/**
 * The error envelope of the family of routes a path belongs to when no route matched it: the routes
 * whose first segment is a guarded parameter that the path's first segment satisfies (the Cloud API's
 * `/{version}/…`). A client of that protocol gets its failures in its own envelope even where no route
 * of it answers: an unknown path or method, the server shutting down.
 */
function familyEnvelope(routes: RouteDefinition[]): (path: string) => ErrorEnvelope | undefined {
  const families = routes.flatMap((route) => {
    const first = /^\/\{(\w+)\}/.exec(route.path)?.[1];
    const guard = first === undefined ? undefined : route.pathGuard?.[first];
    return guard && route.errorEnvelope ? [{ guard, envelope: route.errorEnvelope }] : [];
  });
  return (path) => {
    const segment = /^\/([^/]+)/.exec(path)?.[1];
    return segment === undefined ? undefined : families.find((f) => f.guard.test(segment))?.envelope;
  };
}

/**
 * Refuses at start-up a `publicBodies.maxBufferedBytes` below the body limit of a route read before its
 * caller is authenticated (Meta's webhooks: 4 MiB): such a route could then never receive a body of its
 * full size, and would answer 503 to each.
 */
function assertPublicBodiesFit(routes: RouteDefinition[], limits: { json: number; media: number }, bounds: PublicBodiesConfig): void {
  const largest = routes.filter((r) => !isKeyed(r) && readsBody(r)).reduce((max, r) => Math.max(max, bodyLimitOf(r, limits)), 0);
  if (largest > bounds.maxBufferedBytes) {
    throw new ConfigError(`publicBodies.maxBufferedBytes (${bounds.maxBufferedBytes}) is below ${largest} bytes, the body limit of a public route (Meta's webhooks): raise it to at least that`);
  }
}

/** Builds the express app: JSON parsing with raw-body capture, routes, docs, 404 and the error model. */
export function createHttpApp(options: HttpAppOptions): {
  app: Express; openapi: Record<string, unknown>; routes: RouteDefinition[]; table: RouteTable<unknown>; undeclared: UndeclaredAnswers; dashboard: DashboardFiles;
} {
  const { routes, logger, metrics } = options;
  // Per level: a flood of 400s does not fold a 503 away.
  const unauthenticated = { info: new LogThrottle(UNAUTHENTICATED_LOG_MS), warn: new LogThrottle(UNAUTHENTICATED_LOG_MS), error: new LogThrottle(UNAUTHENTICATED_LOG_MS) };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', options.trustProxy);
  const prefixes = new Set([...STATIC_PREFIXES, ...routes.map((r) => r.path.split('/')[1]!).filter((p) => !p.startsWith('{'))]);

  const docs: RouteDefinition[] = [
    defineRoute({
      method: 'get', path: '/', operationId: 'root', tag: 'Operations', auth: 'public',
      summary: 'Where to start: the documentation and the OpenAPI document (a browser is sent to the dashboard)',
      description: `A request that prefers HTML to JSON (a browser) is redirected (302) to the dashboard at \`${DASHBOARD_PATH}/\`; API clients get this JSON.`,
      response: okResponse({ data: s.object({ name: s.string(), version: s.string(), docs: s.string(), openapi: s.string(), dashboard: s.string() }, ['name', 'version', 'docs', 'openapi', 'dashboard']) }),
      errors: [302],
      handler: async ({ req, res }) => {
        if (req.accepts(['application/json', 'text/html']) === 'text/html') {
          res.setHeader('Location', `${DASHBOARD_PATH}/`);
          return new TextReply(`Found: ${DASHBOARD_PATH}/\n`, 'text/plain; charset=utf-8', 302);
        }
        return { data: { name: 'Parley messaging gateway', version: options.version, docs: '/docs', openapi: '/openapi.json', dashboard: `${DASHBOARD_PATH}/` } };
      },
    }),
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
    ...guideRoutes(options.docs ?? findDocs()),
  ];
  // Bounded before both the document and the validators read them, so the document states the bounds.
  const all = [...routes, ...docs].map(boundIntegers);
  const undeclared = new UndeclaredAnswers();
  const openapi = buildOpenApi(all, { version: options.version });
  const openapiText = JSON.stringify(openapi);
  const readBody = jsonBody();
  const limits = { json: options.bodyLimitBytes, media: options.mediaBodyLimitBytes };
  assertPublicBodiesFit(all, limits, options.publicBodies);
  const { middleware: serveRoute, table } = routeMiddleware(all, {
    resolveScope: options.resolveScope, durable: options.durable, readBody, readPublicBody: publicBodyReader(readBody, options.publicBodies), limiter: options.limiter, idempotency: options.idempotency,
    limits, logger,
  });
  const envelopeOf = familyEnvelope(all);
  /** A failure no route answered: in the envelope of the path's family of routes (through the error handler), else Parley's. */
  const unrouted = (req: Request, res: Response, next: NextFunction, status: number, code: string, message: string): void => {
    const envelope = envelopeOf(req.path);
    if (!envelope) return sendError(res, status, code, message);
    (req as MatchedRequest).parleyErrorEnvelope = envelope;
    next(new ParleyError(status, code, message));
  };

  // One middleware for the hot path (shutdown check, request log, route): every layer express walks
  // costs each request a `next()` round. The route reads the body itself, after authenticating.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (options.isShuttingDown()) {
      res.set('Connection', 'close');
      unrouted(req, res, next, 503, 'shutting_down', 'the server is shutting down');
      return;
    }
    // performance.now(): a double, where hrtime.bigint() allocated two BigInts per request.
    const started = performance.now();
    res.on('finish', () => {
      const ms = performance.now() - started;
      const route = (req as MatchedRequest).parleyRoute;
      // Metrics label a request by its template only: the path may carry an instance key.
      metrics?.request(req.method, route ?? UNMATCHED_ROUTE, res.statusCode, ms / 1e3);
      // A matched route logs its template (`/admin/instances/:key`, `/sandbox/:key/scan`): keys may sit in any segment.
      const path = route ?? unmatchedPath(req.path, (seg) => prefixes.has(seg));
      const line = { method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 };
      const declared = (req as MatchedRequest).parleyStatuses;
      if (declared && !declared.has(res.statusCode) && undeclared.note(req.method, path, res.statusCode)) {
        logger.error(line, 'answer status not declared for this route in the OpenAPI document');
      }
      // Successful calls are debug-level: at gateway volumes an info line per send costs throughput. So
      // are failed lookups (401, 404, 429): a flood of them must not flood the log (the failure
      // limiter warns once when it blocks an address).
      const level = res.statusCode === 503 ? 'warn' : res.statusCode >= 500 ? 'error' : res.statusCode >= 400 && !QUIET_FAILURES.has(res.statusCode) ? 'info' : 'debug';
      if (level === 'debug' || (req as MatchedRequest).parleyAuthenticated) logger[level](line, 'request');
      // Other failures of callers without credentials (a public route's 400 or 403, a malformed path, 503
      // while shutting down): one line a second per level, `requests` counting those it stands for (the
      // details are the latest one's).
      else unauthenticated[level].note((requests) => logger[level]({ ...line, requests }, 'request'));
    });
    serveRoute(req, res, next);
  });

  app.use('/docs/assets', express.static(swaggerUiDir(), { index: false, fallthrough: false }));
  const dashboard = options.dashboard ?? findDashboard();
  app.use(DASHBOARD_PATH, dashboardRouter(dashboard, logger));

  app.use((req: Request, res: Response, next: NextFunction) => {
    const family = envelopeOf(req.path) !== undefined;
    // A protocol's own family: what was asked, segments that could be a key left out (its paths are listed in /docs).
    const asked = req.path.split('/').map((seg, i) => (i > 1 && KEY_LIKE.test(seg) ? ':id' : seg.slice(0, 64))).join('/');
    const message = family ? `no route ${req.method} ${asked} (the paths answered are listed in /docs)` : notFoundMessage(req.method, req.path, (seg) => prefixes.has(seg));
    unrouted(req, res, next, 404, 'route_not_found', message);
  });
  app.use(errorHandler(logger));
  return { app, openapi, routes: all, table, undeclared, dashboard };
}
