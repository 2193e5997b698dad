import { SINK_EVENT_KINDS } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, s } from '../http/schema.js';
import { keyParams } from '../schemas/common.schemas.js';
import { deadLetterPage, deadLetterQuery, redeliverBody, redeliverResponse, statsSchema } from './webhook.routes.js';

type Scope = InstanceRuntime;
const tag = 'Sinks';

const sinkParams = s.object({
  ...(keyParams.properties as Record<string, Record<string, unknown>>),
  name: s.string({ pattern: '^[a-z][a-z0-9-]{0,31}$', description: 'Sink name (`amqp`, `nats`, or a third-party sink plugin\'s).' }),
}, ['key', 'name']);

const eventsSchema = s.nullable(s.array(s.enum(SINK_EVENT_KINDS), {
  maxItems: SINK_EVENT_KINDS.length, description: 'Event kinds to publish; null or left out: every kind the format carries.',
}));

const settingsBody = s.object({
  enabled: s.boolean({ description: 'Publish this instance\'s events to the sink.' }),
  format: s.string({ minLength: 1, maxLength: 64, description: 'Webhook format of the bodies: `native`, `meta`, or any registered format.' }),
  events: eventsSchema,
}, ['enabled', 'format']);

const sinkView = s.object({
  name: s.string(),
  enabled: s.boolean(),
  format: s.string(),
  events: eventsSchema,
  health: s.object({ ready: s.boolean(), detail: s.string() }, ['ready'], { description: 'Whether the sink can publish now (server-wide), and why not.' }),
}, ['name', 'enabled', 'format', 'events', 'health']);

/** Per-instance event sinks (docs/sinks.md): settings, statistics, dead letters and redelivery, beside the webhook settings. */
export function sinkRoutes(ctx: ServerContext): RouteDefinition[] {
  const sinks = ctx.webhooks.sinks;
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/instance/sinks', operationId: 'listSinks', tag, auth: 'instance', params: keyParams,
      summary: 'The configured event sinks with this instance\'s settings', response: dataResponse(s.array(sinkView)),
      handler: async ({ scope }) => ({ data: sinks.list(scope.record) }),
    }),
    defineRoute<{ name: string }, unknown, { enabled: boolean; format: string; events?: string[] | null }, Scope>({
      method: 'put', path: '/{key}/instance/sinks/{name}', operationId: 'updateSinkSettings', tag, auth: 'instance', params: sinkParams,
      summary: 'Enable or disable a sink for this instance, with its format and event kinds',
      description: '400 names the bad field (`body.format` when no such format is registered); 404 `sink_not_found` when no plugin provides the sink.',
      body: settingsBody, response: dataResponse(sinkView), errors: [404],
      handler: async ({ scope, params, body }) => {
        const settings = sinks.validate(params.name, body);
        const record = await ctx.registry.update(scope.id, { sinks: { ...scope.record.sinks, [params.name]: settings } });
        return { data: sinks.view(record, params.name) };
      },
    }),
    defineRoute<{ name: string }, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/instance/sinks/{name}/statistics', operationId: 'sinkStatistics', tag, auth: 'instance', params: sinkParams,
      summary: 'Publish statistics of one sink (as the webhook statistics; `avgResponseTime` is the mean confirm time)',
      response: dataResponse(statsSchema), errors: [404],
      handler: async ({ scope, params }) => ({ data: await sinks.stats(scope.id, params.name) }),
    }),
    defineRoute<{ name: string }, { limit: number; offset: number }, unknown, Scope>({
      method: 'get', path: '/{key}/instance/sinks/{name}/dead-letters', operationId: 'sinkDeadLetters', tag, auth: 'instance', params: sinkParams,
      summary: 'Events of one sink that exhausted the retry schedule, oldest dead first', query: deadLetterQuery, response: deadLetterPage, errors: [404],
      handler: async ({ scope, params, query }) => {
        const page = await sinks.deadLetters(scope.id, params.name, query);
        return { data: page.items.map(({ instance: _instance, ...rest }) => rest), total: page.total, limit: query.limit, offset: query.offset };
      },
    }),
    defineRoute<{ name: string }, unknown, { ids?: string[] }, Scope>({
      method: 'post', path: '/{key}/instance/sinks/{name}/dead-letters/redeliver', operationId: 'sinkRedeliver', tag, auth: 'instance', params: sinkParams,
      summary: 'Queue a sink\'s dead letters again (all of them, or the given ids), due now', body: redeliverBody, response: redeliverResponse, errors: [404],
      handler: async ({ scope, params, body }) => ({ data: { redelivered: await sinks.redeliver(scope.id, params.name, body.ids) } }),
    }),
  ];
}
