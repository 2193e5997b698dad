import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, okResponse, s } from '../http/schema.js';
import { keyParams } from '../schemas/common.schemas.js';

type Scope = InstanceRuntime;
const tag = 'Webhooks';

/** Delivery statistics (spec 2.3); sinks answer the same shape. */
export const statsSchema = s.object({
  totalSent: s.integer({ description: 'Deliveries acknowledged with 2xx.' }),
  totalFailed: s.integer({ description: 'Failed attempts (non-2xx, time-out, network error), each attempt once.' }),
  totalPending: s.integer({ description: 'Deliveries queued and not yet delivered or dead-lettered.' }),
  avgResponseTime: s.integer({ description: 'Mean response time in milliseconds over attempts that got an HTTP answer.' }),
}, ['totalSent', 'totalFailed', 'totalPending', 'avgResponseTime']);

/** A dead letter as the API shows it (webhooks and sinks). */
export const deadLetterSchema = s.openObject({
  id: s.string(), url: s.string(), format: s.string(), eventId: s.string(), eventType: s.string(), body: s.string(),
  createdAt: s.integer(), attempts: s.integer(), nextAttemptAt: s.integer({ description: 'Unix ms of the attempt that was due when it died' }),
  lastError: s.string(), lastStatus: s.integer(), deadAt: s.integer(),
}, ['id', 'url', 'format', 'eventId', 'eventType', 'attempts', 'deadAt']);

/** Paging of a dead-letter list. */
export const deadLetterQuery = s.object({ limit: s.integer({ minimum: 1, maximum: 500, default: 50 }), offset: s.integer({ minimum: 0, default: 0 }) });
/** A page of dead letters. */
export const deadLetterPage = okResponse({ data: s.array(deadLetterSchema), total: s.integer(), limit: s.integer(), offset: s.integer() });
/** Which dead letters to queue again (all when `ids` is left out). */
const redeliverIds = s.array(s.string({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 1000 });
export const redeliverBody = s.object({ ids: redeliverIds });
export const redeliverResponse = dataResponse(s.object({ redelivered: s.integer() }));
/** The webhook dead letters' redelivery: also to the instance's current settings. */
const webhookRedeliverBody = s.object({
  ids: redeliverIds,
  target: s.enum(['original', 'current'], {
    default: 'original',
    description: '`original` (default): each dead letter as it was, to the URL and in the format it was rendered for. `current`: each dead letter\'s event '
      + 'routed and rendered again under the webhook settings as they are now (the URL of its event type, every format of `webhookFormat`, '
      + '`allowWebhook` and `allowNumber`), for example after fixing a wrong URL. The signing secret is always the instance\'s current one.',
  }),
}, [], { examples: [{ target: 'current' }] });
const webhookRedeliverResponse = dataResponse(s.object({
  redelivered: s.integer({ description: 'Dead letters queued again (with `target: current`, their events queued for the current settings).' }),
  kept: s.array(s.object({ id: s.string(), reason: s.enum(['event_expired', 'not_routed']) }, ['id', 'reason']), {
    description: '`target: current` only: dead letters left as they were, because their event left the event log (`event_expired`) or the current settings route it nowhere (`not_routed`).',
  }),
}, ['redelivered']));

/** Spec 2.3 statistics, plus the dead-letter list and redelivery (Parley extensions, docs/webhooks.md). */
export function webhookRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/instance/webhook/statistics', operationId: 'webhookStatistics', tag, auth: 'instance', params: keyParams,
      summary: 'Webhook delivery statistics (spec 2.3)', response: dataResponse(statsSchema),
      handler: async ({ scope }) => ({ data: await ctx.webhooks.stats(scope.id) }),
    }),
    defineRoute<unknown, { limit: number; offset: number }, unknown, Scope>({
      method: 'get', path: '/{key}/instance/webhook/dead-letters', operationId: 'webhookDeadLetters', tag, auth: 'instance', params: keyParams,
      summary: 'Deliveries that exhausted their retry schedule, oldest dead first',
      query: deadLetterQuery, response: deadLetterPage,
      handler: async ({ scope, query }) => {
        const page = await ctx.webhooks.deadLetters(scope.id, query);
        return { data: page.items.map(({ instance: _instance, ...rest }) => rest), total: page.total, limit: query.limit, offset: query.offset };
      },
    }),
    defineRoute<unknown, unknown, { ids?: string[]; target?: 'original' | 'current' }, Scope>({
      method: 'post', path: '/{key}/instance/webhook/dead-letters/redeliver', operationId: 'webhookRedeliver', tag, auth: 'instance', params: keyParams,
      summary: 'Queue dead letters again (all of them, or the given ids), due now: as they were, or to the current settings',
      body: webhookRedeliverBody, response: webhookRedeliverResponse,
      handler: async ({ scope, body }) => {
        if (body.target !== 'current') return { data: { redelivered: await ctx.webhooks.redeliver(scope.id, body.ids) } };
        return { data: await ctx.webhooks.redeliverToCurrent(scope.record, body.ids) };
      },
    }),
  ];
}
