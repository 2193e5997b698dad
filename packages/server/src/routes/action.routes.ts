import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { messageResponse, okResponse, s } from '../http/schema.js';
import { keyParams } from '../schemas/common.schemas.js';
import { connectedCapability } from './instance-guards.js';

type Scope = InstanceRuntime;
const tag = 'Actions';

/** Spec 4.8: whether a number has an account, and wiping the instance's stored data. */
export function actionRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    defineRoute<unknown, { number: string }, unknown, Scope>({
      method: 'get', path: '/{key}/actions/registered', operationId: 'isRegistered', tag, auth: 'instance', params: keyParams,
      summary: 'Whether a number has an account on the channel',
      description: 'Answers top-level `registered` (boolean), plus `jid` (extension) when registered.',
      query: s.object({ number: s.string({ pattern: '^\\+?\\d{6,15}$', description: 'Digits with country code.' }) }, ['number']),
      response: okResponse({ registered: s.boolean(), jid: s.string() }, ['registered']), errors: [409, 422],
      handler: async ({ scope, query }) => {
        const contacts = connectedCapability(scope, 'contacts');
        const result = await contacts.isRegistered(query.number.replace(/^\+/, ''));
        return result.registered ? { registered: true, jid: result.jid } : { registered: false };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/actions/storage', operationId: 'clearStorage', tag, auth: 'instance', params: keyParams,
      summary: 'Delete the stored messages, chats, contacts and media of the instance',
      description: 'Answers `message`. The instance, its settings and its session stay; new events fill the storage again.',
      response: messageResponse,
      handler: async ({ scope }) => {
        // In the instance's event order: nothing processed before is written back after the wipe.
        await ctx.bus.run(scope.id, async () => {
          await ctx.storage.messages.clear(scope.id);
          await ctx.storage.chats.clear(scope.id);
          await ctx.storage.contacts.clear(scope.id);
          await ctx.storage.media.clear(scope.id);
        });
        return { message: 'Stored messages, chats, contacts and media deleted' };
      },
    }),
  ];
}
