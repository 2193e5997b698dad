import { IDEMPOTENCY_HEADER } from '../http/idempotency.js';
import type { RouteDefinition } from '../http/route.js';
import type { RouteRequest } from './tool-schema.js';

/** What a REST operation answered: its status and its JSON body. */
export interface RouteAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Calls a REST operation of this server over HTTP, as any client would: the MCP server is a client of
 * the REST API, so a tool call gets the very validation, authentication, idempotency, outbound queue,
 * pacing, SSRF guard and (in a cluster) forwarding to the instance's owner that a REST call gets,
 * with no second path to a channel. `baseUrl` is read at each call: the server's port is known only
 * once it listens.
 */
export class RouteCaller {
  constructor(private readonly baseUrl: () => string) {}

  /** `request.path` with its `{key}` filled by `key` (never logged: the HTTP app logs route templates). */
  async call(route: RouteDefinition, key: string, request: RouteRequest): Promise<RouteAnswer> {
    const query = new URLSearchParams(request.query).toString();
    const url = `${this.baseUrl()}${request.path.replace('{key}', encodeURIComponent(key))}${query ? `?${query}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.idempotencyKey !== undefined) headers[IDEMPOTENCY_HEADER] = request.idempotencyKey;
    const res = await fetch(url, {
      method: route.method.toUpperCase(), headers, redirect: 'manual',
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }
}
