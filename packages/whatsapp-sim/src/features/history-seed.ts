import { randomBytes } from 'node:crypto';
import { proto } from '@whiskeysockets/baileys';
import type { Account } from '../network/model.js';
import { SimError } from '../network/errors.js';
import type { Media } from './media.js';
import { chatStateOf } from './chat-state.js';

/** How many chats and messages a phone's history gets; every `mediaEvery`-th message is an image. */
export interface HistoryOptions {
  chats: number;
  messagesPerChat: number;
  /** Every n-th message of a chat is an image on the media host (0: none). */
  mediaEvery?: number;
  /** How many of each chat's last messages from the contact the phone has not read (`unreadCount`; default 0). */
  unreadPerChat?: number;
}

/** What was seeded: each chat's JID and its messages' ids, oldest first. */
export interface SeededHistory {
  chats: Array<{ jid: string; name: string; messageIds: string[] }>;
}

/**
 * Bounds of a seed: up to 1,000 chats of up to 1,000 messages, 100,000 messages in all (enough for a
 * bench's 50,000-message history). The history reaches a companion in chunks (`history.ts`).
 */
export const MAX_HISTORY_CHATS = 1_000;
export const MAX_HISTORY_MESSAGES = 1_000;
export const MAX_HISTORY_TOTAL = 100_000;
/** A fixed JPEG-signed sample for history images (the content does not matter, its encryption does). */
const SAMPLE_IMAGE = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(600)]);

/** A history image: uploaded (encrypted) to the media host, with its inline preview (`jpegThumbnail`) as phones send it. */
function historyImage(media: Media, caption: string): Promise<proto.IMessage> {
  return media.upload({ kind: 'image', data: SAMPLE_IMAGE, mimetype: 'image/jpeg', caption });
}

function count(value: unknown, name: string, max: number, min = 1): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new SimError(400, 'invalid_history', `${name} must be an integer from ${min} to ${max}`, { field: name });
  }
  return value;
}

/**
 * Fills a phone's chat history, as a companion linked afterwards receives it: N chats with contacts
 * `55119<account's last 4 digits><chat, 2 or 3 digits>` (not on the network), each with M messages alternating between the
 * contact and the phone, one minute apart and ending an hour ago, every `mediaEvery`-th an image (with its inline preview) uploaded
 * (encrypted) to the media host; the last `unreadPerChat` messages from each contact unread. Replaces any earlier seed.
 */
export async function seedHistory(media: Media, account: Account, options: HistoryOptions): Promise<SeededHistory> {
  const chats = count(options.chats, 'chats', MAX_HISTORY_CHATS);
  const perChat = count(options.messagesPerChat, 'messagesPerChat', MAX_HISTORY_MESSAGES);
  const mediaEvery = options.mediaEvery === undefined ? 0 : count(options.mediaEvery, 'mediaEvery', MAX_HISTORY_MESSAGES, 0);
  const unread = options.unreadPerChat === undefined ? 0 : count(options.unreadPerChat, 'unreadPerChat', MAX_HISTORY_MESSAGES, 0);
  if (chats * perChat > MAX_HISTORY_TOTAL) {
    throw new SimError(400, 'invalid_history', `chats × messagesPerChat must be at most ${MAX_HISTORY_TOTAL}`, { field: 'messagesPerChat' });
  }
  const digits = Math.max(2, String(chats - 1).length);
  const end = Math.floor(Date.now() / 1000) - 3600;
  const history: proto.IConversation[] = [];
  for (let c = 0; c < chats; c++) {
    const jid = `55119${account.number.slice(-4)}${String(c).padStart(digits, '0')}@s.whatsapp.net`;
    const name = `Contato ${c + 1}`;
    const messages: proto.IHistorySyncMsg[] = [];
    for (let m = 0; m < perChat; m++) {
      const fromMe = m % 2 === 1;
      const timestamp = end - (perChat - m) * 60;
      const text = `Mensagem ${m + 1} de ${name}`;
      const id = `3EB0${randomBytes(8).toString('hex').toUpperCase()}`;
      const content = mediaEvery && (m + 1) % mediaEvery === 0 ? await historyImage(media, text) : { conversation: text };
      // The phone has the media of its history: a media retry for it gets a new upload.
      if (content.imageMessage) media.keep(account, id, content, SAMPLE_IMAGE);
      messages.push({
        msgOrderId: m + 1,
        message: {
          key: { remoteJid: jid, fromMe, id }, message: content, messageTimestamp: timestamp,
          status: fromMe ? proto.WebMessageInfo.Status.READ : undefined, pushName: fromMe ? undefined : name,
        },
      });
    }
    const fromContact = messages.filter((m) => !m.message!.key!.fromMe).length;
    chatStateOf(account, jid).unreadCount = Math.min(unread, fromContact);
    history.push({ id: jid, name, displayName: name, conversationTimestamp: end, messages: messages.reverse() });
  }
  account.history = history;
  return {
    chats: history.map((chat) => ({ jid: chat.id!, name: chat.name!, messageIds: (chat.messages ?? []).map((m) => m.message!.key!.id!).reverse() })),
  };
}
