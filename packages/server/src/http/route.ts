import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { MediaObject } from '@parley/core';
import type { JsonSchema } from './schema.js';

/** HTTP methods routes use. */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route: anyone, the holder of the instance key in the path, the admin token,
 * (`metrics`, the Prometheus scrape) the admin token or the configured metrics token,
 * (`credential`, protocol surfaces without a key in the path: `/mcp`) an instance key or the admin
 * token as `Authorization: Bearer`, or (`bearer`, protocol surfaces such as the Cloud API) the holder
 * of an instance key sent as `Authorization: Bearer`.
 */
export type RouteAuth = 'public' | 'instance' | 'admin' | 'metrics' | 'credential' | 'bearer';

/**
 * How a protocol surface answers failures in its protocol's own envelope (the Cloud API's
 * `{"error": {...}}`): `answer` maps any error the route's request met (authentication, body,
 * validation, handler) to a reply, or undefined to leave it to the server's error model; `schema`
 * is that envelope, as the OpenAPI document shows it.
 */
export interface ErrorEnvelope {
  /** Name of {@link schema} among the OpenAPI document's component schemas. */
  name: string;
  schema: JsonSchema;
  answer(err: unknown): JsonReply | undefined;
}

/**
 * A binary answer (spec 4.4 `format=binary`): bytes in memory, or a stream of `length` bytes piped
 * to the client as they come (a stored media read from its store, {@link BinaryReply.of}).
 */
export class BinaryReply {
  constructor(
    readonly data: Buffer | Readable,
    readonly contentType: string,
    readonly fileName?: string,
    readonly length = (data as Buffer).length,
  ) {}

  /** A media opened for reading, streamed to the client. */
  static of(media: MediaObject): BinaryReply {
    return new BinaryReply(media.body, media.mimetype, media.fileName, media.size);
  }
}

/** A non-JSON text answer (the docs page, Meta's verification challenge). */
export class TextReply {
  constructor(
    readonly text: string,
    readonly contentType = 'text/plain; charset=utf-8',
    readonly status = 200,
  ) {}
}

/** A JSON answer with a status of the handler's choosing (driver routes relay channel protocols). */
export class JsonReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/**
 * A long-lived answer its own callback writes (the event streams): the router hands it the request
 * and the response, headers not sent yet, once authentication and validation have passed.
 */
export class StreamReply {
  constructor(readonly start: (req: Request, res: Response) => void) {}
}

/** What a handler receives. `P`, `Q`, `B` are the validated params, query and body. */
export interface RouteContext<P, Q, B, S> {
  params: P;
  query: Q;
  body: B;
  /** Resolved per auth mode (the instance for `instance` routes). */
  scope: S;
  req: Request;
  res: Response;
  /**
   * On a route declaring `keyedIds`, run under an idempotency key: the seed of the run (see
   * `idempotency.ts`), from which the handler derives the id of what it creates.
   */
  runKey?: string;
}

/**
 * One REST operation: its contract (schemas, auth, docs) and its handler. The router validates with
 * ajv from the same schemas the OpenAPI document shows, and wraps JSON answers as
 * `{"status": 200, ...handlerResult}`.
 */
export interface RouteDefinition<P = any, Q = any, B = any, S = any> {
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/{key}/message/{messageId}/{type}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  auth: RouteAuth;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  /**
   * `media` for routes whose body may carry media inline (a base64 data URI): they read up to the
   * configured `mediaBodyLimitBytes`; a number of bytes for a route with its own bound (a driver's);
   * every other route reads up to `bodyLimitBytes` (1 MiB by default).
   */
  bodyLimit?: 'media' | number;
  /**
   * Schema of the success answer, or a binary/text description (`json` too when a query picks the
   * form; `schema` when the text is a JSON document answered as prepared, like `/openapi.json`).
   */
  response: JsonSchema | { binary: string[]; json?: JsonSchema } | { text: string; schema?: JsonSchema };
  /**
   * Error statuses the handler can answer besides those every route of its kind can (see
   * `route-statuses.ts`); the OpenAPI document lists them and any other answer is reported.
   */
  errors?: number[];
  /**
   * The route creates something (a message, a group, a label, a product, an instance): it honours
   * the `Idempotency-Key` header (see `idempotency.ts`), which the OpenAPI document declares.
   * Its handler answers JSON.
   */
  idempotent?: boolean;
  /**
   * The handler derives the id of what it creates from `runKey` (a send's message id), so that a run
   * that takes over the key of a server that died mid-request creates what that server's run would
   * have, once, instead of waiting for the key's lease (see `idempotency.ts`).
   */
  keyedIds?: boolean;
  /** Failures in a protocol's own envelope instead of Parley's error model. */
  errorEnvelope?: ErrorEnvelope;
  /**
   * Patterns path parameters must match for the route to match at all: a path that fails them is
   * no route of this one (404 `route_not_found`), as if it were not registered (the Cloud API's
   * `/{version}/…`, whose version segment tells it from `/{key}/…`).
   */
  pathGuard?: Record<string, RegExp>;
  handler(ctx: RouteContext<P, Q, B, S>): Promise<Record<string, unknown> | BinaryReply | TextReply | JsonReply | StreamReply>;
}

/** Identity helper that keeps a route's generic types. */
export function defineRoute<P = any, Q = any, B = any, S = any>(route: RouteDefinition<P, Q, B, S>): RouteDefinition<P, Q, B, S> {
  return route;
}

/** Converts `/{key}/x/{id}` to express's `/:key/x/:id` (the form request logs show). */
export function toExpressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * Whether a route takes an instance key or the admin token: its answers may carry secrets
 * (`Cache-Control: no-store`) and its failed authentications count against the caller (429).
 */
export function isKeyed(route: RouteDefinition): boolean {
  return route.auth !== 'public' || route.path.includes('{key}');
}

/** Whether a route reads a request body (up to its limit, so it may answer 413): every route but a body-less GET. */
export function readsBody(route: RouteDefinition): boolean {
  return route.body !== undefined || route.method !== 'get';
}
