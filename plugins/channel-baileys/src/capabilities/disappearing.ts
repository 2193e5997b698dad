import { isJidGroup } from '@whiskeysockets/baileys';
import type { AdapterRuntime } from '../runtime.js';
import type { BaileysSocket } from '../socket.js';

/**
 * The disappearing-messages timer (seconds) of the chat a message goes to, 0 when off: a group's
 * from its metadata (the send-side cache Baileys' group sends read through, else a query), a
 * person's from the stored chat, which WhatsApp's `chats.update` keeps (Baileys emits
 * `ephemeralExpiration` when either side changes the setting). A message sent without the timer of
 * a chat that has one shows the recipient "the sender may be on an old version" and does not
 * disappear.
 */
export async function disappearingTimer(runtime: AdapterRuntime, socket: BaileysSocket, jid: string): Promise<number> {
  if (isJidGroup(jid)) {
    let meta = runtime.groupCache.get(jid);
    if (!meta) {
      meta = await socket.groupMetadata(jid).catch(() => undefined);
      if (meta) runtime.groupCache.set(jid, meta);
    }
    return meta?.ephemeralDuration ?? 0;
  }
  const chat = await runtime.context.storage.chats.get(runtime.context.instanceId, jid);
  return chat?.ephemeralExpiration ?? 0;
}
