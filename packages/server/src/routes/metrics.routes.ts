import type { ServerContext } from '../app/server-context.js';
import { defineRoute, TextReply, type RouteDefinition } from '../http/route.js';

/** The Prometheus scrape: the admin token or the metrics token (`auth: 'metrics'`). */
export function metricsRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/metrics', operationId: 'metrics', tag: 'Operations', auth: 'metrics',
      summary: 'Prometheus metrics (text format 0.0.4)',
      description: 'Needs `Authorization: Bearer <admin token>`, or the metrics token when one is configured (`PARLEY_METRICS_TOKEN`). '
        + 'HTTP requests by route template and status, sends by channel and type, events by kind, webhook deliveries, failures, '
        + 'pending and attempt latency by format, instances by channel and state, storage operation latency, and the process '
        + 'metrics of prom-client (CPU, memory, GC, event-loop lag). No label holds an instance key.',
      response: { text: 'text/plain; version=0.0.4' },
      handler: async () => new TextReply(await ctx.metrics.text(), ctx.metrics.contentType),
    }),
  ];
}
