import { addressKind, NotFoundError, type Chat, type ChatsCapability, type Storage } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';

/** The stored chat of an instance, or 404 `chat_not_found`. */
export async function storedChat(ctx: ServerContext, instanceId: string, jid: string): Promise<Chat> {
  const chat = await ctx.storage.chats.get(instanceId, jid);
  if (!chat) throw new NotFoundError(`chat ${jid}`, 'chat_not_found');
  return chat;
}

/**
 * The chat a person's normalized address names: its stored chat; else, when the main channel files
 * the person under another address (WhatsApp: a Brazilian mobile registered without its ninth digit,
 * which sends reach through `resolveRecipient`) and the instance is connected, the stored chat of the
 * address the channel resolves it to; else the address itself. So the number a user typed for a send
 * finds the conversation the send and its replies are in. A failed lookup changes nothing.
 */
export async function chatOfAddress(ctx: ServerContext, runtime: InstanceRuntime, address: string): Promise<string> {
  if (await ctx.storage.chats.get(runtime.id, address)) return address;
  const messaging = runtime.main.capabilities.messaging;
  if (!messaging?.resolveRecipient || !runtime.isConnected() || addressKind(runtime.addressing, address) !== 'person') return address;
  const resolved = await messaging.resolveRecipient(address).catch(() => undefined);
  return resolved && resolved !== address && (await ctx.storage.chats.get(runtime.id, resolved)) ? resolved : address;
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
/** Moves the REST status of a chat's incoming messages to `READ` (spec 2.4), page by page. */
async function markIncomingRead(storage: Storage, instance: string, jid: string): Promise<void> {
  const limit = 100;
  for (let page = 1; ; page++) {
    const { items, total } = await storage.messages.listByChat(instance, jid, { page, limit });
    for (const record of items) if (!record.key.fromMe) await storage.messages.setStatus(instance, record.key.id, 'READ');
    if (items.length === 0 || page * limit >= total) return;
  }
}


/**
 * Marks a stored chat read through its channel's chats capability (read receipts to the senders)
 * and answers it once settled, its incoming messages `READ`: `PATCH /{key}/chat/{jid}?action=markRead`
 * and the Cloud API's `status: "read"`. 404 `chat_not_found` before anything is sent.
 */
export async function markChatRead(ctx: ServerContext, jid: string, instanceId: string, chats: Pick<ChatsCapability, 'markRead'>): Promise<Chat> {
  await storedChat(ctx, instanceId, jid);
  await chats.markRead(jid, true);
  return settledChat(ctx, instanceId, jid, () => markIncomingRead(ctx.storage, instanceId, jid));
}
