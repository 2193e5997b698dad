import type { Express, NextFunction, Request, Response } from 'express';
import { ValidationError } from '@parley/core';
import { BinaryReply, JsonReply, specificity, TextReply, toExpressPath, type RouteAuth, type RouteDefinition } from './route.js';
import { check, RequestValidator } from './validator.js';

/** Resolves the scope of a request for an auth mode (throws 401/404 errors). */
export type ScopeResolver = (auth: RouteAuth, req: Request) => Promise<unknown>;

/**
 * Mounts route definitions on an express app: most specific paths first, each with its validators
 * compiled once at start-up. Non-GET answers wait for `durable()` (storage flush).
 */
export function mountRoutes(app: Express, routes: RouteDefinition[], resolveScope: ScopeResolver, durable: () => Promise<void>): void {
  const validator = new RequestValidator();
  const seen = new Set<string>();
  const ordered = [...routes].sort((a, b) => specificity(a.path).localeCompare(specificity(b.path)));
  for (const route of ordered) {
    const id = `${route.method.toUpperCase()} ${route.path}`;
    if (seen.has(id)) throw new Error(`duplicate route ${id}`);
    seen.add(id);
    const params = route.params ? validator.strings(route.params) : undefined;
    const query = route.query ? validator.strings(route.query) : undefined;
    const body = route.body ? validator.body(route.body) : undefined;
    app[route.method](toExpressPath(route.path), async (req: Request, res: Response, next: NextFunction) => {
      try {
        const scope = await resolveScope(route.auth, req);
        const p = { ...req.params };
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
          res.status(result.status).json(result.body);
        } else if (result instanceof TextReply) {
          res.status(result.status).set('Content-Type', result.contentType).send(result.text);
        } else {
          res.status(200).json({ status: 200, ...result });
        }
      } catch (err) {
        next(err);
      }
    });
  }
}
