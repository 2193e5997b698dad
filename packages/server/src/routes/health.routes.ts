import type { ServerContext } from '../app/server-context.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, s } from '../http/schema.js';
import { ServiceUnavailableError } from '@parley/core';

const tag = 'Operations';

/** Liveness and readiness probes. */
export function healthRoutes(ctx: ServerContext, isShuttingDown: () => boolean): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/healthz', operationId: 'healthz', tag, auth: 'public',
      summary: 'Liveness: the process is up',
      response: dataResponse(s.object({ status: s.string(), uptime: s.number(), version: s.string() })),
      handler: async () => ({ data: { status: 'ok', uptime: Math.round(process.uptime()), version: ctx.version } }),
    }),
    defineRoute({
      method: 'get', path: '/readyz', operationId: 'readyz', tag, auth: 'public',
      summary: 'Readiness: storage reachable and writing, and not shutting down (503 otherwise)',
      description: 'A 503 says why: storage unreachable, unable to write (a full disk: until a probe write succeeds again), or its database file damaged. '
        + 'An event sink whose broker is unreachable does not make the server unready (its events stay queued in the outbox): `sinks` reports each one.',
      response: dataResponse(s.object({
        status: s.string(), storage: s.string(),
        sinks: s.anyObject({ additionalProperties: s.object({ ready: s.boolean(), detail: s.string() }, ['ready']), description: 'Each configured event sink by name: whether it can publish now, and why not' }),
      }, ['status', 'storage', 'sinks'])), errors: [503],
      handler: async () => {
        if (isShuttingDown()) throw new ServiceUnavailableError('shutting down');
        const health = await ctx.storage.health().catch((err: Error) => ({ ready: false, detail: err.message }));
        if (!health.ready) throw new ServiceUnavailableError(`storage ${ctx.storage.name} is not ready${health.detail ? `: ${health.detail}` : ''}`);
        return { data: { status: 'ready', storage: ctx.storage.name, sinks: ctx.webhooks.sinks.health() } };
      },
    }),
  ];
}
