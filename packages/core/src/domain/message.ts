import type { Readable } from 'node:stream';
import type { ChannelName } from './channel-name.js';

/**
 * REST message status (spec 2.4 / 3). `PENDING` on a fresh send; then it follows the delivery
 * statuses `sent` → `SERVER_ACK`, `delivered` → `DELIVERY_ACK`, `read` → `READ`, `played` → `PLAYED`,
 * `failed` → `ERROR` (the names WhatsApp clients use).
 */
export type MessageStatus = 'PENDING' | 'SERVER_ACK' | 'DELIVERY_ACK' | 'READ' | 'PLAYED' | 'ERROR';

/** Delivery status of a webhook `statuses[]` item (spec 3). */
export type DeliveryStatus = 'sent' | 'delivered' | 'read' | 'played' | 'failed';

/** Rank of each REST status: a status never moves backwards. */
export const MESSAGE_STATUS_RANK: Record<MessageStatus, number> = {
  ERROR: -1, PENDING: 0, SERVER_ACK: 1, DELIVERY_ACK: 2, READ: 3, PLAYED: 4,
};

/** Maps a webhook delivery status onto the REST record status. */
export function restStatusOf(status: DeliveryStatus): MessageStatus {
  return ({ sent: 'SERVER_ACK', delivered: 'DELIVERY_ACK', read: 'READ', played: 'PLAYED', failed: 'ERROR' } as const)[status];
}

/** Identity of a message (spec 2.4 `key`). */
export interface MessageKey {
  /** Chat JID. */
  remoteJid: string;
  fromMe: boolean;
  id: string;
  /** Sender inside a group chat. */
  participant?: string;
}

/**
 * Typed message content (spec 2.4 `message`): exactly one member, named as WhatsApp's protocol names
 * it (`conversation`, `extendedTextMessage`, `imageMessage`, …), so that records from every channel
 * read the same. Members stay open-ended: channels may add what their protocol carries.
 */
export type MessageContent = Record<string, unknown>;

/** A message record (spec 2.4), as answered by send, details and chat-message listings. */
export interface MessageRecord {
  key: MessageKey;
  message: MessageContent;
  /** Unix seconds as text. */
  messageTimestamp: string;
  status: MessageStatus;
  /** Channel the message went through. */
  provider?: ChannelName;
  pushName?: string;
}

/** Stored media of a message (spec 4.4). */
export interface MediaBlob {
  data: Buffer;
  mimetype: string;
  fileName?: string;
}

/**
 * A stored blob opened for reading as a stream ({@link MediaRepository.open}): its description and
 * its bytes as they arrive from the store, so that a reader never holds the whole blob. The reader
 * consumes `body` or destroys it; `body` errors when the store fails in the middle of the read.
 */
export interface MediaObject {
  /** The blob's length in bytes, known before its bytes are read. */
  size: number;
  mimetype: string;
  fileName?: string;
  body: Readable;
}

/** The `Content-Disposition` a served media carries: `inline`, with its file name (quotes, backslashes and line breaks as `_`). */
export function inlineDisposition(fileName: string): string {
  return `inline; filename="${fileName.replace(/["\\\r\n]/g, '_')}"`;
}
