import type { NextFunction, Request, Response } from 'express';
import { ValidationError } from '@parley/core';
import { BinaryReply, JsonReply, TextReply, toExpressPath, type RouteAuth, type RouteDefinition } from './route.js';
import { RouteTable } from './route-table.js';
import { routeStatuses } from './route-statuses.js';
import { check, RequestValidator } from './validator.js';

/** Resolves the scope of a request for an auth mode (throws 401/404 errors). */
export type ScopeResolver = (auth: RouteAuth, req: Request) => Promise<unknown>;

/**
 * What an express request carries once the route table has matched it: the route's template (for
 * logs) and the statuses it declares (the HTTP app reports answers outside them).
 */
export type MatchedRequest = Request & { parleyRoute?: string; parleyStatuses?: ReadonlySet<number> };

/** Sends a JSON answer: what `res.json` does, without its content negotiation and ETag machinery (Parley sets no ETags). */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * Builds the one express middleware that serves every route definition: a {@link RouteTable}
 * finds the route, its validators (compiled once at start-up) check the request, the handler runs,
 * and non-GET answers wait for `durable()` (storage flush). Requests no route matches go on to the
 * next middleware (the 404 answer). Answers the middleware and the table (the OpenAPI test reads it).
 */
export function routeMiddleware(routes: RouteDefinition[], resolveScope: ScopeResolver, durable: () => Promise<void>) {
  const validator = new RequestValidator();
  const table = new RouteTable<(req: Request, res: Response, params: Record<string, string>) => Promise<void>>();
  for (const route of routes) {
    const params = route.params ? validator.strings(route.params) : undefined;
    const query = route.query ? validator.strings(route.query) : undefined;
    const body = route.body ? validator.body(route.body) : undefined;
    const logPath = toExpressPath(route.path);
    const statuses: ReadonlySet<number> = new Set(routeStatuses(route));
    table.add(route.method, route.path, async (req, res, matched) => {
      (req as MatchedRequest).parleyRoute = logPath;
      (req as MatchedRequest).parleyStatuses = statuses;
      req.params = matched;
      const scope = await resolveScope(route.auth, req);
      const p = { ...matched };
      if (params) check(params, p, 'path');
      const q = { ...(req.query as Record<string, unknown>) };
      if (query) check(query, q, 'query');
      let b: unknown = req.body;
      if (body) {
        if (b === undefined || b === null || typeof b !== 'object' || Array.isArray(b)) {
          // An empty body on a route whose every member is optional reads as `{}`.
          if (b === undefined && !(route.body!.required as string[] | undefined)?.length) b = {};
          else throw new ValidationError('body must be a JSON object (Content-Type: application/json)');
        }
        check(body, b, 'body');
      }
      const result = await route.handler({ params: p, query: q, body: b, scope, req, res });
      // An answer to a request that changed something means its writes are on disk.
      if (route.method !== 'get') await durable();
      if (result instanceof BinaryReply) {
        res.status(200).set('Content-Type', result.contentType).set('Content-Length', String(result.data.length));
        if (result.fileName) res.set('Content-Disposition', `inline; filename="${result.fileName.replace(/["\\\r\n]/g, '_')}"`);
        res.end(result.data);
      } else if (result instanceof JsonReply) {
        sendJson(res, result.status, result.body);
      } else if (result instanceof TextReply) {
        res.status(result.status).set('Content-Type', result.contentType).send(result.text);
      } else {
        sendJson(res, 200, { status: 200, ...result });
      }
    });
  }
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    let found;
    try {
      found = table.match(req.method, req.path);
    } catch (err) {
      next(err);
      return;
    }
    if (!found) {
      next();
      return;
    }
    found.value(req, res, found.params).catch(next);
  };
  return { middleware, table };
}
