import { NotFoundError, type Chat } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';

/** The stored chat of an instance, or 404 `chat_not_found`. */
export async function storedChat(ctx: ServerContext, instanceId: string, jid: string): Promise<Chat> {
  const chat = await ctx.storage.chats.get(instanceId, jid);
  if (!chat) throw new NotFoundError(`chat ${jid}`, 'chat_not_found');
  return chat;
}

/**
 * The stored chat once every event the channel emitted so far is applied (then `task`, in that
 * order): what a route answers after changing a chat through the channel.
 */
export function settledChat(ctx: ServerContext, instanceId: string, jid: string, task?: () => Promise<void>): Promise<Chat> {
  return ctx.bus.run(instanceId, async () => {
    await task?.();
    return storedChat(ctx, instanceId, jid);
  });
}
