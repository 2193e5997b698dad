import type { NextFunction, Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describeError, inlineDisposition, isParleyError, ParleyError, ValidationError, type Logger } from '@parley/core';
import type { FailureLimiter } from './failure-limiter.js';
import { IdempotencyGuard, REPLAYED_HEADER } from './idempotency.js';
import { BinaryReply, isKeyed, JsonReply, readsBody, StreamReply, TextReply, toExpressPath, type ErrorEnvelope, type RouteAuth, type RouteDefinition } from './route.js';
import { RouteTable } from './route-table.js';
import { routeStatuses } from './route-statuses.js';
import { check, RequestValidator } from './validator.js';

/** What a route's handler answers, JSON results wrapped as a {@link JsonReply}. */
type Reply = BinaryReply | TextReply | JsonReply | StreamReply;

/** What a scope resolver answers when it answered the request itself (a cluster node forwarded it to the instance's owner). */
export const ANSWERED = Symbol('parley.answered');

/** Resolves the scope of a request for an auth mode (throws 401/404 errors), or answers it and resolves {@link ANSWERED}. */
export type ScopeResolver = (auth: RouteAuth, req: Request, res: Response) => Promise<unknown>;

/** Reads a request body into `req.body` (see json-body.ts); rejects with a body-parser style error. */
export type BodyReader = (req: Request, res: Response, limitBytes: number) => Promise<void>;

/**
 * What an express request carries once the route table has matched it: the route's template (for
 * logs) and the statuses it declares (the HTTP app reports answers outside them).
 */
export type MatchedRequest = Request & {
  parleyRoute?: string;
  parleyStatuses?: ReadonlySet<number>;
  /** The caller proved a key or a token (a route that takes one, past its check): its failures are logged in full. */
  parleyAuthenticated?: true;
  /** The route creates something and takes an `Idempotency-Key` (a cluster node forwarding it attaches an internal key). */
  parleyIdempotent?: true;
  /**
   * The internal key under which a request without the client's `Idempotency-Key` runs at most once in
   * a cluster: made by the node forwarding it, or received from that node with the cluster secret.
   */
  parleyForwardKey?: string;
  /** The route answers its failures in its protocol's envelope (the error handler asks it first). */
  parleyErrorEnvelope?: ErrorEnvelope;
};

/** What {@link routeMiddleware} needs besides the routes. */
export interface RouterOptions {
  resolveScope: ScopeResolver;
  /** Resolves when every write so far is durable (awaited before answering non-GET requests). */
  durable: () => Promise<void>;
  readBody: BodyReader;
  /**
   * Reads the body of a request whose caller is not authenticated when it is read (a public route
   * without a key): {@link readBody} within the `publicBodies` bounds (see public-body.ts).
   */
  readPublicBody: BodyReader;
  /** Body limits: `media` for routes declaring `bodyLimit: 'media'`, `json` for the others. */
  limits: { json: number; media: number };
  limiter: FailureLimiter;
  /** Serves the `Idempotency-Key` of routes declaring `idempotent`. */
  idempotency: IdempotencyGuard;
  /** Where failures after an answer's headers (a streamed answer's source) are logged. */
  logger: Logger;
}

/** Sends a JSON answer: what `res.json` does, without its content negotiation and ETag machinery (Parley sets no ETags). */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** 429 with `Retry-After`: the client's address failed to authenticate too often. */
function rateLimited(res: Response, ms: number): ParleyError {
  const seconds = Math.ceil(ms / 1000);
  res.setHeader('Retry-After', String(seconds));
  return new ParleyError(429, 'rate_limited', `too many failed authentications from this address; retry in ${seconds} s`, { retryAfterSeconds: seconds });
}

/** The most a route reads of a request body: its own limit, or the server's for media or JSON routes. */
export function bodyLimitOf(route: RouteDefinition, limits: RouterOptions['limits']): number {
  return route.bodyLimit === 'media' ? limits.media : route.bodyLimit ?? limits.json;
}

/** A failed key lookup or admin token check (what the failure limiter counts). */
function isAuthFailure(err: unknown): boolean {
  return isParleyError(err) && (err.status === 401 || err.code === 'instance_not_found');
}

/**
 * Builds the one express middleware that serves every route definition: a {@link RouteTable}
 * finds the route, the caller is authenticated from the path and headers, then the body is read
 * with the route's limit (so an unknown key or a bad token never costs a body read), its
 * validators (compiled once at start-up) check the request, the handler runs, and non-GET answers
 * wait for `durable()` (storage flush). Failed authentications count against the caller's address
 * ({@link FailureLimiter}); once it is blocked they answer 429. Successful ones are never limited,
 * even from a blocked address: clients behind one proxy or NAT must not lose their service to a
 * neighbour polling with a deleted key, and keys (192 random bits) cannot be guessed anyway. Requests
 * no route matches go on to the next middleware (the 404 answer). Answers the middleware and the table (the
 * OpenAPI test reads it).
 */
export function routeMiddleware(routes: RouteDefinition[], options: RouterOptions) {
  const { resolveScope, durable, readBody, readPublicBody, limiter, idempotency } = options;
  const validator = new RequestValidator();
  const table = new RouteTable<(req: Request, res: Response, params: Record<string, string>) => Promise<void>>();
  for (const route of routes) {
    const params = route.params ? validator.strings(route.params) : undefined;
    const query = route.query ? validator.strings(route.query) : undefined;
    const body = route.body ? validator.body(route.body) : undefined;
    const logPath = toExpressPath(route.path);
    const statuses: ReadonlySet<number> = new Set(routeStatuses(route));
    // Routes that take a key or the admin token: their answers may carry secrets, and their failures count.
    const keyed = isKeyed(route);
    const withBody = readsBody(route);
    const limit = bodyLimitOf(route, options.limits);
    table.add(route.method, route.path, async (req, res, matched) => {
      (req as MatchedRequest).parleyRoute = logPath;
      (req as MatchedRequest).parleyStatuses = statuses;
      if (route.idempotent) (req as MatchedRequest).parleyIdempotent = true;
      if (route.errorEnvelope) (req as MatchedRequest).parleyErrorEnvelope = route.errorEnvelope;
      // A copy: resolving a `bearer` route's scope adds its key to req.params, which is no path parameter of the route.
      req.params = { ...matched };
      if (keyed) res.setHeader('Cache-Control', 'no-store');
      let scope: unknown;
      try {
        scope = await resolveScope(route.auth, req, res);
      } catch (err) {
        await failed(req, res, err);
      }
      if (keyed) (req as MatchedRequest).parleyAuthenticated = true;
      if (scope === ANSWERED) return;
      // A malformed key is refused before the body is read; other routes ignore the header.
      const idempotencyKey = route.idempotent ? IdempotencyGuard.keyOf(req.headers['idempotency-key']) : undefined;
      // Past a key or token check a body has the server's general bounds; anyone else's, tighter ones.
      if (withBody) await (keyed ? readBody : readPublicBody)(req, res, limit);
      const p = { ...matched };
      if (params) check(params, p, 'path');
      // Without a query string there is nothing to parse (express's `req.query` parses the URL on every read).
      const q: Record<string, unknown> = req.url.includes('?') ? { ...(req.query as Record<string, unknown>) } : {};
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
      const run = (runKey?: string) => answer(route, { params: p, query: q, body: b, scope, req, res, ...(runKey === undefined ? {} : { runKey }) });
      const forwardKey = route.idempotent && idempotencyKey === undefined ? (req as MatchedRequest).parleyForwardKey : undefined;
      if (idempotencyKey === undefined && forwardKey === undefined) {
        send(req, res, await run());
        return;
      }
      const { key: _key, ...named } = p;
      const fingerprint = IdempotencyGuard.fingerprint([route.method, route.path, named, q, b]);
      const idempotencyScope = route.auth === 'admin' ? 'admin' : (scope as { id: string }).id;
      let outcome;
      try {
        // A failure frees the key (only successes are kept) and is answered by the error handler.
        // A route deriving its ids from its run's seed (a send's message id) gets it.
        const execute = async (seed: string) => {
          const result = await run(route.keyedIds ? seed : undefined);
          if (!(result instanceof JsonReply)) throw new Error(`${route.operationId} is idempotent but did not answer JSON`);
          return { status: result.status, body: result.body };
        };
        outcome = idempotencyKey !== undefined
          ? await idempotency.run(idempotencyScope, idempotencyKey, fingerprint, execute, { rerunnable: route.keyedIds })
          : await idempotency.runForwarded(idempotencyScope, forwardKey!, fingerprint, execute, route.keyedIds);
      } catch (err) {
        if (isParleyError(err) && err.code === 'idempotency_key_in_progress') res.setHeader('Retry-After', '1');
        throw err;
      }
      // The kept answer is durable before it is answered. The handler's own writes were made durable
      // before it was kept (answer()): when only keeping it fails, the request was carried out, and
      // answering an error would invite the retry that runs it twice.
      await durable().catch((err: unknown) => {
        if (outcome.replayed) throw err;
      });
      // Said only to a client that gave a key: an internal key's replay is the answer to the client's one request.
      if (outcome.replayed && idempotencyKey !== undefined) res.setHeader(REPLAYED_HEADER, 'true');
      sendJson(res, outcome.answer.status, outcome.answer.body);
    }, route.pathGuard);
  }

  /**
   * Runs a route's handler and waits, for a request that changed something, until its writes are
   * durable. A JSON result is answered as a {@link JsonReply} `{"status": 200, ...result}`.
   */
  async function answer(route: RouteDefinition, ctx: Parameters<RouteDefinition['handler']>[0]): Promise<Reply> {
    // A public route under a key (a driver's `/sandbox/{key}/…`): the scope resolver refused an unknown
    // key before the body was read; a lookup failing in its handler counts as well.
    let result: Awaited<ReturnType<RouteDefinition['handler']>>;
    try {
      result = await route.handler(ctx);
    } catch (err) {
      if (route.auth === 'public' && isKeyed(route)) await failed(ctx.req, ctx.res, err);
      throw err;
    }
    // An answer to a request that changed something means its writes are on disk.
    if (route.method !== 'get') await durable();
    if (result instanceof BinaryReply || result instanceof JsonReply || result instanceof TextReply || result instanceof StreamReply) return result;
    return new JsonReply(200, { status: 200, ...result });
  }

  function send(req: Request, res: Response, result: Reply): void {
    if (result instanceof StreamReply) {
      result.start(req, res);
    } else if (result instanceof BinaryReply) {
      res.status(200).set('Content-Type', result.contentType).set('Content-Length', String(result.length));
      if (result.fileName) res.set('Content-Disposition', inlineDisposition(result.fileName));
      if (Buffer.isBuffer(result.data)) res.end(result.data);
      else streamBody(req, res, result.data);
    } else if (result instanceof JsonReply) {
      sendJson(res, result.status, result.body);
    } else {
      res.status(result.status).set('Content-Type', result.contentType).send(result.text);
    }
  }

  /**
   * Pipes a streamed answer to the client. Its headers are sent: when the source fails mid-way (the
   * media store went away) the connection is destroyed, so that the client sees a short body, never a
   * complete-looking one, and the failure is logged; a client that leaves destroys the source.
   */
  function streamBody(req: Request, res: Response, body: Readable): void {
    // Whichever ends first tells the cause: the source failing (then the response is destroyed), or the client leaving.
    let sourceFailed: unknown;
    let clientLeft = false;
    body.once('error', (err) => clientLeft || (sourceFailed ??= err));
    res.once('close', () => (clientLeft = !res.writableFinished && sourceFailed === undefined));
    pipeline(body, res).catch(() => {
      if (sourceFailed !== undefined) {
        options.logger.warn({ method: req.method, path: (req as MatchedRequest).parleyRoute, err: describeError(sourceFailed) }, 'streamed answer failed mid-way; connection closed');
      }
    });
  }

  /**
   * Counts a failed authentication against the caller's address; rethrows it, or 429 once the
   * address is blocked (a blocked address's failures no longer reach the counter's store).
   */
  async function failed(req: Request, res: Response, err: unknown): Promise<never> {
    if (!isAuthFailure(err)) throw err;
    const address = req.ip ?? '';
    const ms = limiter.retryAfterMs(address) || (await limiter.fail(address));
    throw ms > 0 ? rateLimited(res, ms) : err;
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
