import { ingestInto, ownMember, type ChannelDriver, type ChannelName, type DriverRequest } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { RequestWithRaw } from './json-body.js';
import { BinaryReply, defineRoute, JsonReply, TextReply, type RouteDefinition } from './route.js';

/**
 * Turns the routes a driver contributes into route definitions mounted under `/<driver name>`, so
 * they share the error model, the OpenAPI document and, where the driver declares schemas for its
 * query or body, their validation.
 */
export function driverRoutes(ctx: ServerContext, driver: ChannelDriver): RouteDefinition[] {
  // A driver's routes reach only the adapters it made: an instance of another driver (a WhatsApp
  // instance's id on the sandbox's public pictures route) is unknown to them, and is not loaded.
  const ownAdapter = async (instanceId: string) => {
    const runtime = await ctx.registry.byIdWhere(instanceId, (record) => record.driver === driver.name || (driver.role === 'social' && ownMember(record.links, driver.name) !== undefined));
    return runtime.adapter(runtime.record.driver === driver.name ? undefined : driver.name);
  };
  return (driver.routes ?? []).map((route) => {
    const path = `/${driver.name}${route.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    return defineRoute({
      method: route.method, path, tag: `Channel: ${driver.name}`, summary: route.summary, auth: route.admin ? 'admin' : 'public',
      operationId: `${driver.name}_${route.method}_${route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
      query: route.query, body: route.body, bodyLimit: route.bodyLimitBytes, ...(route.errors ? { errors: route.errors } : {}),
      response: route.response ?? { type: 'object', description: 'Channel-specific answer' },
      // The body and query as the router checked them (an absent optional body reads as `{}`).
      handler: async ({ req, body, query }) => {
        const ingestHere = async (instanceId: string, payload: unknown) => ingestInto(await ownAdapter(instanceId), instanceId, payload);
        const request: DriverRequest = {
          params: req.params as Record<string, string>,
          query: Object.fromEntries(Object.entries(query as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : undefined])),
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v])),
          body: route.rawBody ? undefined : body,
          rawBody: route.rawBody ? (req as RequestWithRaw).rawBody ?? Buffer.alloc(0) : undefined,
          adapter: ownAdapter,
          ingest: (instanceId, payload) => ctx.clusterRouter
            ? ctx.clusterRouter.ingest(instanceId, req, (req as RequestWithRaw).rawBody ?? Buffer.alloc(0), () => ingestHere(instanceId, payload))
            : ingestHere(instanceId, payload),
          linkedAccount: (channel: ChannelName, accountId: string) => ctx.registry.linkedAccounts.find(channel, accountId),
          hasVerifyToken: (channel: ChannelName, token: string) => ctx.registry.linkedAccounts.hasVerifyToken(channel, token),
          instanceByKey: async (key: string) => (await ctx.registry.byKey(key)).record,
        };
        const answer = await route.handler(request);
        if (Buffer.isBuffer(answer.body)) return new BinaryReply(answer.body, answer.contentType ?? 'application/octet-stream');
        if (typeof answer.body === 'string') return new TextReply(answer.body, answer.contentType ?? 'text/plain; charset=utf-8', answer.status);
        return new JsonReply(answer.status, answer.body ?? { status: answer.status });
      },
    });
  });
}
