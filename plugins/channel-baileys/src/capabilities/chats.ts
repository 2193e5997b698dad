import { NotFoundError, type ChatsCapability, type PrivacySettings } from '@parley/core';
import { isJidGroup, type MinimalMessage } from '@whiskeysockets/baileys';
import type { AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';

/** Chat management (spec 4.5) over Baileys' app-state patches. */
export function chatsCapability(runtime: AdapterRuntime): ChatsCapability {
  const { context } = runtime;

  /** WhatsApp's chat patches name the newest message they apply to; it comes from stored history. */
  async function lastMessage(jid: string): Promise<{ minimal: MinimalMessage; fromMe: boolean; participant?: string }> {
    const page = await context.storage.messages.listByChat(context.instanceId, jid, { page: 1, limit: 1 });
    const record = page.items[0];
    if (!record) throw new NotFoundError('chat with stored messages');
    return {
      minimal: { key: { remoteJid: record.key.remoteJid, fromMe: record.key.fromMe, id: record.key.id }, messageTimestamp: Number(record.messageTimestamp) },
      fromMe: record.key.fromMe,
      ...(record.key.participant ? { participant: record.key.participant } : {}),
    };
  }

  return {
    async markRead(jid, read) {
      const socket = runtime.connection.openSocket();
      const last = await lastMessage(jid);
      await upstream('the chat read marker', () => socket.chatModify({ markRead: read, lastMessages: [last.minimal] }, jid));
      // Marking read also sends the read receipt the sender sees (blue ticks).
      if (read && !last.fromMe) {
        const key = { ...last.minimal.key, ...(last.participant ? { participant: last.participant } : {}) };
        await upstream('the read receipt', () => socket.readMessages([key]));
      }
    },
    async pin(jid, pinned) {
      const socket = runtime.connection.openSocket();
      await upstream('the chat pin', () => socket.chatModify({ pin: pinned }, jid));
    },
    async delete(jid) {
      const socket = runtime.connection.openSocket();
      const last = await lastMessage(jid);
      await upstream('the chat deletion', () => socket.chatModify({ delete: true, lastMessages: [last.minimal] }, jid));
    },
    async subscribePresence(jid) {
      const socket = runtime.connection.openSocket();
      await upstream('the presence subscription', () => socket.presenceSubscribe(jid));
    },
    async setDisappearing(jid, expiration) {
      const socket = runtime.connection.openSocket();
      // Baileys turns this into a group setting for groups and a protocol message for chats.
      await upstream('the disappearing-messages setting', () => socket.sendMessage(jid, { disappearingMessagesInChat: expiration }));
      // Baileys does not process the instance's own sends (emitOwnEvents is off), so nothing reports this change:
      // the chat takes the timer here, and a group's cached metadata goes, so the next send carries the timer.
      if (isJidGroup(jid)) runtime.groupCache.del(jid);
      context.emit({ type: 'chats.upsert', chats: [{ id: jid, ephemeralExpiration: expiration }] });
    },
    async privacy(): Promise<PrivacySettings> {
      const socket = runtime.connection.openSocket();
      return upstream('the privacy settings query', () => socket.fetchPrivacySettings(true));
    },
  };
}
