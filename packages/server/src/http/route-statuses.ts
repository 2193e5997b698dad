import { isKeyed, readsBody, type RouteDefinition } from './route.js';

/**
 * The one place that decides which statuses an operation can answer. The OpenAPI document lists
 * exactly these, and the HTTP app reports every answer outside them ({@link UndeclaredAnswers}), so
 * the document and the server cannot drift apart unnoticed.
 *
 * A status comes from one of three sources:
 * - {@link EVERY_ROUTE}: what the HTTP layer answers around any handler (body parsing, the error
 *   model, shutdown). A new layer-wide answer (a rate limit's 429, say) is added here, with its
 *   description in {@link STATUS_DESCRIPTIONS}.
 * - {@link BY_KIND}: what follows from how a route is declared (its auth mode).
 * - the route's own `errors`: what its handler can raise (404 of a lookup, 409 not connected, …).
 */
export const STATUS_DESCRIPTIONS: Record<number, string> = {
  202: 'Accepted: the request carried only notifications or responses, which have no answer (`/mcp`).',
  302: 'Found: the answer is at the `Location` header (a browser asking for `/` goes to the dashboard; GET media, with a media store configured to, goes to a presigned address of the object store).',
  400: 'The body, query or a path parameter fails its schema (the message names the field), or the body is not JSON.',
  401: 'Missing or wrong admin token (or metrics token, on `/metrics`; or instance key, on `/mcp`).',
  403: 'The instance may not do this (for example it is not an admin of the group).',
  404: 'Unknown instance key or resource.',
  405: 'Method not allowed: the MCP transport answers HEAD `/mcp` so (it serves POST, GET and DELETE).',
  408: 'The request body of a caller without credentials (a public route) did not arrive within `publicBodies.timeoutMs`; the connection is closed.',
  409: 'The operation conflicts with the current state (for example the instance is not connected), or a request with the same `Idempotency-Key` is still being processed (`Retry-After`).',
  413: 'The body or media is over its size limit.',
  415: 'The body\'s charset or content encoding is not supported.',
  429: 'Too many failed authentications (unknown key, bad admin token) from this address, or (sends) the instance\'s outbound queue is full; `Retry-After` says when to retry. On the event streams also `too_many_streams`: a concurrency limit is reached.',
  422: 'The instance\'s channel does not support this capability (or this field), or the `Idempotency-Key` was used for a different request.',
  500: 'Internal error (no internals are exposed). On sends also `sent_not_recorded`: the channel took the message (`details.messageId`) and storing its record failed; do not send it again.',
  502: 'The channel\'s network refused or failed the operation (`upstream_error`). On requests that change something also `outcome_unknown`: in a cluster the connection to the node running the instance broke (or that node stopped answering) after the request reached it, or (Redis with Sentinel) the store\'s replicas did not confirm the request\'s writes in time, so whether it was carried out, or survives a failover, is not known; send it again only with an `Idempotency-Key` (docs/rest-api.md, *What an answer means*).',
  503: 'Storage or the channel is temporarily unavailable, or the server is shutting down. On sends a 503 means nothing was sent or queued: the send may be made again as it is. On public routes that read a body also `server_busy`: the bodies of callers without credentials being received fill `publicBodies.maxBufferedBytes` (`Retry-After`, the connection is closed).',
  504: 'A download from the channel\'s network passed its time limit and was stopped (`media_download_timeout`).',
};

/**
 * Answered around any handler: 400 a failing schema or a broken path encoding, 500 internal errors,
 * 503 while shutting down or when storage is unavailable.
 */
export const EVERY_ROUTE: readonly number[] = [400, 500, 503];

/** Statuses that follow from how a route is declared. */
export const BY_KIND: readonly ((route: RouteDefinition) => readonly number[])[] = [
  // The instance key is resolved first: an unknown key is 404 instance_not_found.
  (route) => (route.auth === 'instance' ? [404] : []),
  (route) => (route.auth === 'admin' || route.auth === 'metrics' || route.auth === 'credential' || route.auth === 'bearer' ? [401] : []),
  // A route that reads a body: over its limit 413, an unsupported charset or encoding 415.
  (route) => (readsBody(route) ? [413, 415] : []),
  // A body read before its caller could be authenticated has a time limit (public-body.ts): 408.
  (route) => (readsBody(route) && !isKeyed(route) ? [408] : []),
  // Failed authentications are counted per address: 429 once an address is blocked.
  (route) => (isKeyed(route) ? [429] : []),
  // A route that needs a channel capability (it declares 422 for channels without it) reaches the
  // channel's network, which can refuse or fail the operation: 502 upstream_error.
  (route) => (route.errors?.includes(422) ? [502] : []),
  // An Idempotency-Key still held by its first request (409), or reused for another request (422).
  (route) => (route.idempotent ? [409, 422] : []),
  // A request that changes something: 502 outcome_unknown when, in a cluster, the connection to the node
  // running its instance broke after the request reached it (cluster-router.ts), or when a replicated
  // store's replicas did not confirm its writes (Redis with Sentinel: `Storage.flush`).
  (route) => (route.method !== 'get' ? [502] : []),
];

/** Every status `route` can answer, success included, in ascending order. */
export function routeStatuses(route: RouteDefinition): number[] {
  const set = new Set<number>([200, ...EVERY_ROUTE, ...BY_KIND.flatMap((rule) => rule(route)), ...(route.errors ?? [])]);
  return [...set].sort((a, b) => a - b);
}

/**
 * Answers whose status the route does not declare, as `METHOD /path/template status` (first seen
 * order). The HTTP app notes them and logs each once; tests assert there are none.
 */
export class UndeclaredAnswers {
  private readonly seen = new Set<string>();

  /** Notes one answer; true when it is the first of its kind (the caller logs it). */
  note(method: string, path: string, status: number): boolean {
    const entry = `${method} ${path} ${status}`;
    if (this.seen.has(entry)) return false;
    this.seen.add(entry);
    return true;
  }

  list(): string[] {
    return [...this.seen];
  }
}
