import { toJid } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, okResponse, s } from '../http/schema.js';
import { keyAnd, keyParams } from '../schemas/common.schemas.js';
import { chatSchema, messageRecordSchema } from '../schemas/message.schemas.js';

type Scope = InstanceRuntime;
const tag = 'Chats';

/** Paging bounds of chat messages (spec 8 leaves them open): page ≥ 1, limit 1–100, default 20. */
export const CHAT_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

/** Spec 4.5: chat list and paginated chat messages. */
export function chatRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/chat', operationId: 'listChats', tag, auth: 'instance', params: keyParams,
      summary: 'Chats, most recent first', response: dataResponse(s.array(chatSchema)),
      handler: async ({ scope }) => ({ data: await ctx.storage.chats.list(scope.id) }),
    }),
    defineRoute<{ jid: string }, { page: number; limit: number }, unknown, Scope>({
      method: 'get', path: '/{key}/chat/{jid}/messages', operationId: 'listChatMessages', tag, auth: 'instance',
      params: keyAnd({ jid: s.string({ minLength: 3, maxLength: 128, description: 'Chat JID, or a phone number.' }) }),
      summary: 'Messages of a chat, newest first',
      query: s.object({
        page: s.integer({ minimum: 1, maximum: 1000000, default: 1 }),
        limit: s.integer({ minimum: 1, maximum: CHAT_PAGE.maxLimit, default: CHAT_PAGE.defaultLimit }),
      }),
      response: okResponse({ data: s.array(messageRecordSchema), page: s.integer(), limit: s.integer(), total: s.integer() }),
      handler: async ({ scope, params, query }) => {
        const jid = toJid(params.jid, 'path.jid');
        const page = await ctx.storage.messages.listByChat(scope.id, jid, query);
        return { data: page.items, page: query.page, limit: query.limit, total: page.total };
      },
    }),
  ];
}
