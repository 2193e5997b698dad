import type { ChannelName } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, recipient, s } from '../http/schema.js';
import { keyParams } from '../schemas/common.schemas.js';
import { messageRecordSchema, providerField } from '../schemas/message.schemas.js';

type Scope = InstanceRuntime;
const tag = 'Messages';

/** Spec 4.2 `/text`. */
export function messageRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    defineRoute<unknown, unknown, { to: string; text: string; provider?: ChannelName }, Scope>({
      method: 'post', path: '/{key}/message/text', operationId: 'sendText', tag, auth: 'instance', params: keyParams,
      summary: 'Send a text message',
      body: s.object({ to: recipient, text: s.text(65536), provider: providerField }, ['to', 'text']),
      response: dataResponse(messageRecordSchema), errors: [409, 422],
      handler: async ({ scope, body }) => ({
        data: await ctx.messaging.send(scope, body.to, { type: 'text', text: body.text }, { provider: body.provider }),
      }),
    }),
  ];
}
