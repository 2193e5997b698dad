import { ConflictError } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, okResponse, s } from '../http/schema.js';
import { keyParams } from '../schemas/common.schemas.js';
import { messageRecordSchema } from '../schemas/message.schemas.js';
import { pacingPolicySchema, policyPatchSchema, queuePageQuery } from '../schemas/queue.schemas.js';
import type { PolicyPatch } from '../send/pacing-policies.js';
import type { SendQueue } from '../send/send-queue.js';

type Scope = InstanceRuntime;
const tag = 'Queue';
const pauseResponse = dataResponse(s.openObject({ paused: s.boolean(), queued: s.integer() }, ['paused', 'queued']));

/** The outbound queue of an instance (issue 16; docs/queue.md): list, cancel, pause, resume, pacing policy. */
export function queueRoutes(ctx: ServerContext): RouteDefinition[] {
  const { storage } = ctx;
  const { policies, pacer, worker } = ctx.outbound;
  const queue = (): SendQueue => {
    if (!ctx.outbound.queue) throw new ConflictError('this server sends without the outbound queue (queue.enabled false)', 'queue_disabled');
    return ctx.outbound.queue;
  };
  const setPaused = async (scope: Scope, paused: boolean) => {
    queue();
    await storage.outbound.setPaused(scope.id, paused);
    if (!paused) worker.wake();
    return { data: { paused, queued: await storage.outbound.count(scope.id) } };
  };
  return [
    defineRoute<unknown, { page: number; limit: number }, unknown, Scope>({
      method: 'get', path: '/{key}/queue', operationId: 'listQueue', tag, auth: 'instance', params: keyParams, query: queuePageQuery,
      summary: 'Sends waiting in the instance\'s outbound queue',
      description: 'Queued and scheduled sends, soonest due first: each is the record the send answered (status `PENDING`) with its '
        + '`queue` state (`queued`, `scheduled`, `paused`, `sending`) and `dueAt`. `paused` tells whether the queue is paused. 409 `queue_disabled` '
        + 'when the server runs without the queue.',
      response: okResponse({ data: s.array(messageRecordSchema), paused: s.boolean(), page: s.integer(), limit: s.integer(), total: s.integer() }),
      errors: [409],
      handler: async ({ scope, query }) => {
        const q = queue();
        const [page, paused] = await Promise.all([
          storage.outbound.list(scope.id, { limit: query.limit, offset: (query.page - 1) * query.limit }), storage.outbound.isPaused(scope.id),
        ]);
        return { data: page.items.map((entry) => q.view(entry, paused)), paused, page: query.page, limit: query.limit, total: page.total };
      },
    }),
    defineRoute<{ messageId: string }, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/queue/{messageId}', operationId: 'cancelQueuedSend', tag, auth: 'instance',
      params: s.object({ key: s.string(), messageId: s.string({ minLength: 1, maxLength: 128 }) }, ['key', 'messageId']),
      summary: 'Cancel a send before it leaves; it is then never sent',
      description: '404 `queued_message_not_found` for an id the queue does not hold; 409 `already_sent` when the channel took it, '
        + '`already_sending` while a worker is sending it (it may be on its way).',
      response: messageResponse, errors: [404, 409],
      handler: async ({ scope, params }) => {
        await queue().cancel(scope.id, params.messageId);
        return { message: `send ${params.messageId} cancelled` };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'post', path: '/{key}/queue/pause', operationId: 'pauseQueue', tag, auth: 'instance', params: keyParams,
      summary: 'Pause the outbound queue: sends are accepted and kept, none leaves until resumed',
      description: 'Durable: a paused queue stays paused across restarts. A send already being sent finishes.',
      response: pauseResponse, errors: [409],
      handler: async ({ scope }) => setPaused(scope, true),
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'post', path: '/{key}/queue/resume', operationId: 'resumeQueue', tag, auth: 'instance', params: keyParams,
      summary: 'Resume a paused outbound queue', response: pauseResponse, errors: [409],
      handler: async ({ scope }) => setPaused(scope, false),
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/queue/policy', operationId: 'getQueuePolicy', tag, auth: 'instance', params: keyParams,
      summary: 'The instance\'s pacing policy',
      description: 'The instance\'s own policy, or its channel\'s default until it sets one (docs/queue.md lists the defaults).',
      response: dataResponse(pacingPolicySchema),
      handler: async ({ scope }) => ({ data: await policies.get(scope.id, scope.record.driver) }),
    }),
    defineRoute<unknown, unknown, PolicyPatch, Scope>({
      method: 'put', path: '/{key}/queue/policy', operationId: 'setQueuePolicy', tag, auth: 'instance', params: keyParams,
      summary: 'Set the instance\'s pacing policy',
      description: 'Members given replace the current ones (`typing` member by member; `null` turns `perMinute`, `perHour` or `quietHours` off). '
        + 'A policy that cannot be met (perHour below perMinute, a perMinute the gap can never reach, quiet all day, an unknown time zone, '
        + 'typing.minMs above typing.maxMs) answers 400 naming the field and changes nothing. Answers the policy now in force.',
      body: policyPatchSchema, response: dataResponse(pacingPolicySchema),
      handler: async ({ scope, body }) => {
        const policy = await policies.set(scope.id, scope.record.driver, body);
        pacer.forget(scope.id);
        return { data: policy };
      },
    }),
  ];
}
