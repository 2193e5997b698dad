import type { ChannelName } from '../domain/channel-name.js';
import type { AccountUser, HealthStatus } from '../domain/account.js';
import type { DeliveryStatus, MessageRecord } from '../domain/message.js';
import type { CallStatus, Chat, Contact, ContactChange, Group, PresenceStatus } from '../domain/resources.js';

/** Media attached to an inbound message; `url` is filled by the server (the REST media endpoint, spec 4.4). */
export interface InboundMedia {
  /** Media id: the message id on the main channel, the attachment id elsewhere. */
  id: string;
  mimeType: string;
  /** Hex SHA-256 of the bytes, empty when the channel does not give it. */
  sha256: string;
  /** Public link given by the channel (reels, Meta CDN), used instead of the REST media URL when set. */
  link?: string;
  caption?: string;
}

/** The preview a received text shows for its link: what the sender's app put in the message. */
export interface InboundLinkPreview {
  /** The link the preview is for. */
  url: string;
  title: string;
  description?: string;
  /** Whether the preview carries a thumbnail image (its bytes stay in the record's `jpegThumbnail`). */
  thumbnail: boolean;
}

/**
 * Normalized content of an inbound message: one member per `type` of spec 6.3. Types a format cannot
 * express become `unsupported` with the protocol's type name.
 */
export type InboundContent =
  | { type: 'text'; body: string; preview?: InboundLinkPreview }
  | { type: 'image'; media: InboundMedia }
  | { type: 'audio'; media: InboundMedia; voice: boolean }
  | { type: 'video'; media: InboundMedia }
  | { type: 'document'; media: InboundMedia; filename: string }
  | { type: 'sticker'; media: InboundMedia; animated: boolean }
  | { type: 'location'; latitude: number; longitude: number; name?: string; address?: string }
  | { type: 'contacts'; contacts: { formattedName: string; vcard: string }[] }
  | { type: 'reaction'; messageId: string; emoji?: string }
  | { type: 'button'; text: string; payload: string }
  | { type: 'list_reply'; id: string; title: string; description?: string }
  | { type: 'button_reply'; id: string; title: string }
  | PollVoteContent
  | EventResponseContent
  | { type: 'unsupported'; typeName: string };

/**
 * A vote on a poll, decrypted (WhatsApp encrypts votes with the poll's secret). Each vote replaces
 * the voter's earlier one; no options means the voter withdrew the vote.
 */
export interface PollVoteContent {
  type: 'poll_vote';
  /** Id of the poll message voted on. */
  pollId: string;
  /** The options now chosen: `hash` is the hex SHA-256 of the option name (what WhatsApp sends), `name` the option when the poll is stored. */
  options: { hash: string; name?: string }[];
}

/** An answer to an event invitation (RSVP), decrypted with the event's secret; a later answer replaces it. */
export interface EventResponseContent {
  type: 'event_response';
  /** Id of the event message answered. */
  eventId: string;
  response: 'going' | 'not_going' | 'maybe';
  /** Guests the responder brings along, when the event allows them. */
  extraGuests?: number;
}

/**
 * Where a message came from: an advertisement, a post or a link (spec 6.3 `referral`). `sourceType`
 * is `ad` for an advertisement on every channel; Messenger and Instagram also name `shortlink` (an
 * m.me / ig.me link) and `customer_chat_plugin`, lower-cased from Meta's `source`.
 */
export interface Referral {
  sourceUrl?: string;
  sourceId?: string;
  sourceType?: string;
  headline?: string;
  body?: string;
  mediaType?: string;
  thumbnailUrl?: string;
  ctwaClid?: string;
  /** Messenger and Instagram: the `ref` parameter of the link or ad the user came through. */
  ref?: string;
}

/** A message received (or sent by the instance from another device), normalized. */
export interface InboundMessage {
  id: string;
  /** Chat JID (the group JID for group messages). */
  chatJid: string;
  /** Sender: phone number (digits) on the main channel, the platform user id on social channels. */
  from: string;
  /** Platform user id of the sender, beside `from` (spec 6.2 `from_user_id`). */
  fromUserId?: string;
  fromMe: boolean;
  /** Unix seconds. */
  timestamp: number;
  chatType: 'individual' | 'group';
  /** Group JID when `chatType` is `group`. */
  groupId?: string;
  /** Sender's display name. */
  pushName?: string;
  /** Sender's username (Instagram) and picture URL (social channels). */
  username?: string;
  picture?: string;
  content: InboundContent;
  /** Quoted message, or the story replied to. */
  context?: { from?: string; id?: string; story?: { id?: string; url: string } };
  /** JIDs the text or caption mentions (WhatsApp's `mentionedJid`), when it mentions anyone. */
  mentions?: string[];
  referral?: Referral;
  /** Set when this message edits an earlier one. */
  edit?: { originalMessageId: string };
  /** The record to store and answer through REST (spec 2.4). */
  record: MessageRecord;
}

/** Error attached to a failed status or an unsupported message (spec 7). */
export interface EventError {
  code: number;
  title: string;
  message: string;
  details: string;
}

/** Payload of every event a channel adapter can emit. `type` picks the member. */
export type ChannelEventPayload =
  | { type: 'message'; message: InboundMessage }
  | {
      type: 'message.status';
      messageId: string;
      /** Chat JID of the message. */
      chatJid: string;
      /** Recipient: phone number, group id, or platform user id. */
      recipientId: string;
      status: DeliveryStatus;
      /** Unix seconds. */
      timestamp: number;
      /** Group receipts: the member who received or read it. */
      participant?: string;
      /** True for an explicit read confirmation (spec 6.3 `receipt`). */
      receipt?: boolean;
      error?: EventError;
    }
  | { type: 'presence'; jid: string; status: PresenceStatus; chatJid?: string }
  | { type: 'connection'; status: 'open'; code: 200; user: AccountUser }
  | { type: 'connection'; status: 'close'; code: number; reason: string; loggedOut: boolean; willReconnect: boolean }
  | { type: 'qrcode'; qr: string; image: string }
  | {
      type: 'call'; callId: string; from: string; fromJid: string; status: CallStatus; isVideo: boolean; isGroup: boolean;
      /** Unix seconds. */
      timestamp: number;
    }
  | { type: 'group.participants'; groupJid: string; action: 'add' | 'remove' | 'promote' | 'demote'; participants: string[]; author?: string }
  | { type: 'group.update'; groups: (Partial<Group> & { id: string })[] }
  | { type: 'health'; status: HealthStatus; previous: HealthStatus; reason: string; shouldPause: boolean; shouldRotate: boolean }
  | { type: 'history'; messages: MessageRecord[]; chats: Chat[]; contacts: Contact[]; isLatest: boolean; progress?: number }
  | { type: 'chats.upsert'; chats: (Partial<Chat> & { id: string })[] }
  | { type: 'chats.delete'; jids: string[] }
  /** Contacts changed (`imgUrl: null`: the picture is gone or unknown, see {@link ContactChange}). */
  | { type: 'contacts.upsert'; contacts: ContactChange[] }
  /** Contacts removed from the account's address book. */
  | { type: 'contacts.delete'; jids: string[] }
  | { type: 'message.delete'; chatJid: string; messageIds: string[] };

/** Name of an event payload kind. */
export type ChannelEventType = ChannelEventPayload['type'];

/** Envelope stamped by the server on every payload an adapter emits. */
export interface ChannelEventMeta {
  /** Unique, time-ordered event id (also the webhook delivery id base). */
  id: string;
  /** Public instance id (never the secret key). */
  instance: string;
  provider: ChannelName;
  /** Unix milliseconds when the server received it. */
  receivedAt: number;
}

/** A normalized channel event, as it travels on the event bus (architecture: ChannelEvent). */
export type ChannelEvent = ChannelEventMeta & ChannelEventPayload;

/** Narrows a channel event by type. */
export type ChannelEventOf<T extends ChannelEventType> = ChannelEventMeta & Extract<ChannelEventPayload, { type: T }>;

/** Sink through which an adapter emits payloads; the server stamps and publishes them. */
export type EventSink = (payload: ChannelEventPayload) => void;
