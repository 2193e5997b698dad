import { normalizeAddress, PRIVACY_VALUES, requireCapability, type PrivacySettings } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, okResponse, s } from '../http/schema.js';
import { channelSlots } from '../schemas/channel-slots.js';
import { keyAnd, keyParams } from '../schemas/common.schemas.js';
import { chatSchema, messageRecordSchema } from '../schemas/message.schemas.js';
import { connectedCapability } from './instance-guards.js';
import { chatOfAddress, markChatRead, settledChat, storedChat } from './stored-chat.js';

type Scope = InstanceRuntime;
/** An address on the main channel, as its addressing states it. */
const recipient = channelSlots.mainAddress();
const tag = 'Chats';

/** Paging bounds of chat messages (spec 8 leaves them open): page ≥ 1, limit 1–100, default 20. */
export const CHAT_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

/** Disappearing-message timers WhatsApp offers (seconds): off, 24 hours, 7 days, 90 days. */
export const DISAPPEARING_EXPIRATIONS = [0, 86400, 604800, 7776000] as const;

const chatJidParams = keyAnd({ jid: s.string({ minLength: 3, maxLength: 128, description: 'Chat JID, or a phone number.' }) });

/** Spec 4.5: chat list, paginated messages, update (mark read, pin), delete, presence, disappearing, privacy (read and, as an extension, change). */
export function chatRoutes(ctx: ServerContext): RouteDefinition[] {
  /**
   * The chat a path names. Instagram and Messenger key chats by the user's numeric id, which is no
   * phone number: a stored chat of exactly that id is taken as it is. A main-channel address is
   * normalized, then looked up as {@link chatOfAddress} does (the chat WhatsApp files the number under).
   */
  const chatIdOf = async (rt: Scope, value: string): Promise<string> =>
    !value.includes('@') && (await ctx.storage.chats.get(rt.id, value)) ? value : chatOfAddress(ctx, rt, normalizeAddress(rt.addressing, value, 'path.jid'));
  /**
   * The chats capability of the channel a chat lives on: the main channel for JIDs, the channel of
   * its latest message for social chats (which have no chat management: 422). Main-channel
   * operations need the connection (409).
   */
  const chatsOfChat = async (rt: Scope, jid: string) => {
    if (jid.includes('@')) {
      return connectedCapability(rt, 'chats');
    }
    const latest = (await ctx.storage.messages.listByChat(rt.id, jid, { page: 1, limit: 1 })).items[0];
    return requireCapability(rt.adapter(latest?.provider), 'chats');
  };
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/chat', operationId: 'listChats', tag, auth: 'instance', params: keyParams,
      summary: 'Chats, most recent first', response: dataResponse(s.array(chatSchema)),
      handler: async ({ scope }) => ({ data: await ctx.storage.chats.list(scope.id) }),
    }),
    defineRoute<{ jid: string }, { page: number; limit: number }, unknown, Scope>({
      method: 'get', path: '/{key}/chat/{jid}/messages', operationId: 'listChatMessages', tag, auth: 'instance',
      params: chatJidParams,
      summary: 'Messages of a chat, newest first',
      query: s.object({
        page: s.integer({ minimum: 1, maximum: 1000000, default: 1 }),
        limit: s.integer({ minimum: 1, maximum: CHAT_PAGE.maxLimit, default: CHAT_PAGE.defaultLimit }),
      }),
      response: okResponse({ data: s.array(messageRecordSchema), page: s.integer(), limit: s.integer(), total: s.integer() }),
      handler: async ({ scope, params, query }) => {
        const jid = await chatIdOf(scope, params.jid);
        const page = await ctx.storage.messages.listByChat(scope.id, jid, query);
        return { data: page.items, page: query.page, limit: query.limit, total: page.total };
      },
    }),
    defineRoute<{ jid: string }, { action: 'markRead' | 'pin'; value: boolean }, unknown, Scope>({
      method: 'patch', path: '/{key}/chat/{jid}', operationId: 'updateChat', tag, auth: 'instance', params: chatJidParams,
      summary: 'Mark a chat read or unread, or pin or unpin it',
      description: 'The spec leaves the path open; Parley uses `PATCH /{key}/chat/{jid}?action=markRead|pin&value=true|false`. '
        + 'Answers `data`: the updated chat. `markRead=true` zeroes `unreadCount`, sends read receipts to the senders and sets the '
        + 'stored incoming messages of the chat to `READ`; `markRead=false` marks the chat unread (`unreadCount` at least 1). '
        + 'At most 3 chats are pinned (409 `pin_limit`). Unknown chat: 404 `chat_not_found`.',
      query: s.object({ action: s.enum(['markRead', 'pin']), value: s.flag() }, ['action', 'value']),
      response: dataResponse(chatSchema), errors: [404, 409, 422],
      handler: async ({ scope, params, query }) => {
        const jid = await chatIdOf(scope, params.jid);
        const capability = await chatsOfChat(scope, jid);
        if (query.action === 'markRead' && query.value) return { data: await markChatRead(ctx, jid, scope.id, capability) };
        await storedChat(ctx, scope.id, jid);
        if (query.action === 'pin') await capability.pin(jid, query.value);
        else await capability.markRead(jid, query.value);
        return { data: await settledChat(ctx, scope.id, jid) };
      },
    }),
    defineRoute<{ jid: string }, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/chat/{jid}', operationId: 'deleteChat', tag, auth: 'instance', params: chatJidParams,
      summary: 'Delete a chat and its messages',
      description: 'The spec leaves the path open; Parley uses `DELETE /{key}/chat/{jid}`. Removes the chat, its stored messages and '
        + 'its labels. Answers `message`. Unknown chat: 404 `chat_not_found`.',
      response: messageResponse, errors: [404, 409, 422],
      handler: async ({ scope, params }) => {
        const jid = await chatIdOf(scope, params.jid);
        const capability = await chatsOfChat(scope, jid);
        await storedChat(ctx, scope.id, jid);
        await capability.delete(jid);
        await ctx.bus.run(scope.id, async () => undefined);
        return { message: `Chat ${jid} deleted` };
      },
    }),
    defineRoute<unknown, unknown, { jid: string }, Scope>({
      method: 'post', path: '/{key}/chat/presence/subscribe', operationId: 'subscribePresence', tag, auth: 'instance', params: keyParams,
      summary: 'Subscribe to the presence of a contact',
      description: 'The contact\'s presence updates arrive as `presence` events (delivered when `receive_presence` is on); the current '
        + 'presence is reported at once. Answers `message`.',
      body: s.object({ jid: recipient }, ['jid']),
      response: messageResponse, errors: [404, 409, 422],
      handler: async ({ scope, body }) => {
        const jid = normalizeAddress(scope.addressing, body.jid, 'body.jid');
        const capability = connectedCapability(scope, 'chats');
        await capability.subscribePresence(jid);
        return { message: `Subscribed to the presence of ${jid}` };
      },
    }),
    defineRoute<unknown, unknown, { jid: string; expiration: number }, Scope>({
      method: 'post', path: '/{key}/chat/disappearing', operationId: 'setDisappearingMessages', tag, auth: 'instance', params: keyParams,
      summary: 'Disappearing-messages timer of a chat',
      description: '`expiration` in seconds, one of the timers WhatsApp offers: 0 (off), 86400 (24 hours), 604800 (7 days), '
        + '7776000 (90 days). Answers `data`: the chat, whose `ephemeralExpiration` shows the timer.',
      body: s.object({
        jid: recipient,
        expiration: s.integer({ enum: [...DISAPPEARING_EXPIRATIONS], description: 'Seconds: 0, 86400, 604800 or 7776000.' }),
      }, ['jid', 'expiration']),
      response: dataResponse(chatSchema), errors: [409, 422],
      handler: async ({ scope, body }) => {
        const jid = normalizeAddress(scope.addressing, body.jid, 'body.jid');
        const capability = connectedCapability(scope, 'chats');
        await capability.setDisappearing(jid, body.expiration);
        return { data: await settledChat(ctx, scope.id, jid) };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/chat/privacy', operationId: 'getPrivacySettings', tag, auth: 'instance', params: keyParams,
      summary: 'Privacy settings of the account',
      description: 'Answers `data`: one member per WhatsApp privacy category (`readreceipts`, `profile`, `status`, `online`, `last`, '
        + '`groupadd`, `calladd`, `messages`) with its value (`all`, `contacts`, `contact_blacklist`, `none`, `match_last_seen`…).',
      response: dataResponse(s.anyObject({ additionalProperties: s.string() })), errors: [409, 422],
      handler: async ({ scope }) => {
        const capability = connectedCapability(scope, 'chats');
        return { data: await capability.privacy() };
      },
    }),
    defineRoute<unknown, unknown, PrivacySettings, Scope>({
      method: 'put', path: '/{key}/chat/privacy', operationId: 'updatePrivacySettings', tag, auth: 'instance', params: keyParams,
      summary: 'Change privacy settings of the account',
      description: 'Parley extension (spec 4.5 only reads them). The body names the categories to change, each with one of '
        + 'WhatsApp\'s values for it; the others stay. Answers `data`: every setting as it now is. An unknown category or value '
        + 'answers 400 and changes nothing.',
      body: s.object(Object.fromEntries(Object.entries(PRIVACY_VALUES).map(([name, values]) => [name, s.enum(values)])), [], { minProperties: 1 }),
      response: dataResponse(s.anyObject({ additionalProperties: s.string() })), errors: [409, 422],
      handler: async ({ scope, body }) => {
        const capability = connectedCapability(scope, 'chats');
        return { data: await capability.setPrivacy(body) };
      },
    }),
  ];
}
