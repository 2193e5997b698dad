import { ConflictError, NotFoundError, ValidationError, type ChatsCapability, type PrivacySettings } from '@parley/core';
import { isJidGroup, type MinimalMessage } from '@whiskeysockets/baileys';
import type { AdapterRuntime } from '../runtime.js';
import type { BaileysSocket } from '../socket.js';
import { upstream } from '../util/errors.js';
import { memberMetadata } from './disappearing.js';

/**
 * Baileys' setter of each privacy category (rc14 Socket/chats.js: each sends `<iq xmlns="privacy" type="set">`
 * with one `<category name value/>`).
 */
const PRIVACY_SETTERS: Record<string, keyof BaileysSocket & `update${string}Privacy`> = {
  readreceipts: 'updateReadReceiptsPrivacy', profile: 'updateProfilePicturePrivacy', status: 'updateStatusPrivacy',
  online: 'updateOnlinePrivacy', last: 'updateLastSeenPrivacy', groupadd: 'updateGroupsAddPrivacy', calladd: 'updateCallPrivacy',
  messages: 'updateMessagesPrivacy',
};

/** WhatsApp's apps pin at most this many chats (the phone refuses a fourth). */
const MAX_PINNED_CHATS = 3;

/**
 * Chat management (spec 4.5) over Baileys' app-state patches. Baileys reports none of the instance's own
 * patches (emitOwnEvents is off, and WhatsApp does not echo a companion's patch back to it), so each change
 * WhatsApp took is emitted here as the chat event the phone's own change would have caused.
 */
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
      // Marked unread shows the badge without touching a count already there.
      const unread = read ? 0 : Math.max((await context.storage.chats.get(context.instanceId, jid))?.unreadCount ?? 0, 1);
      context.emit({ type: 'chats.upsert', chats: [{ id: jid, unreadCount: unread }] });
    },
    async pin(jid, pinned) {
      const socket = runtime.connection.openSocket();
      if (pinned) {
        const others = (await context.storage.chats.list(context.instanceId)).filter((c) => c.pinned && c.id !== jid);
        if (others.length >= MAX_PINNED_CHATS) throw new ConflictError(`at most ${MAX_PINNED_CHATS} chats can be pinned: unpin one first`, 'pin_limit');
      }
      await upstream('the chat pin', () => socket.chatModify({ pin: pinned }, jid));
      context.emit({ type: 'chats.upsert', chats: [{ id: jid, pinned }] });
    },
    async delete(jid) {
      const socket = runtime.connection.openSocket();
      const last = await lastMessage(jid);
      await upstream('the chat deletion', () => socket.chatModify({ delete: true, lastMessages: [last.minimal] }, jid));
      // The chat leaves its labels in Parley's label store, as the labels section of docs/rest-api.md says of every channel.
      for (const label of await runtime.labels.list()) {
        if ((await runtime.labels.chats(label.id)).includes(jid)) await runtime.labels.associate(label.id, jid, false);
      }
      context.emit({ type: 'chats.delete', jids: [jid] });
    },
    async subscribePresence(jid) {
      const socket = runtime.connection.openSocket();
      // A group's chat states come to its members who subscribed to it; WhatsApp answers others nothing.
      if (isJidGroup(jid)) await memberMetadata(runtime, socket, jid);
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
    async setPrivacy(settings: PrivacySettings): Promise<PrivacySettings> {
      const socket = runtime.connection.openSocket();
      // One iq per category, in order (the route checked every name and value before any is sent). The answer is
      // read back with `force`, which also renews Baileys' cached settings (readMessages picks `read` or `read-self` from them).
      for (const [name, value] of Object.entries(settings)) {
        const setter = PRIVACY_SETTERS[name];
        if (!setter) throw new ValidationError(`body.${name} is not a privacy category`);
        await upstream(`the ${name} privacy setting`, () => (socket[setter] as (v: string) => Promise<void>)(value));
      }
      return upstream('the privacy settings query', () => socket.fetchPrivacySettings(true));
    },
  };
}
