import type { ChannelEventPayload, ContactCard } from '@parley/core';

/** Media as it travels between sandbox phones (base64, so mailboxes stay JSON). */
export interface WireMedia {
  data: string;
  mimetype: string;
  fileName?: string;
  sha256: string;
}

/** A message travelling between sandbox phones. */
export interface MessagePacket {
  kind: 'message';
  id: string;
  /** Sender's number. */
  from: string;
  fromName: string;
  /** Group JID when sent to a group; absent for a direct message. */
  groupJid?: string;
  /** Unix seconds. */
  timestamp: number;
  /** The proto-shaped content (spec 2.4 `message`) the receiver stores. */
  message: Record<string, unknown>;
  media?: WireMedia;
  quoted?: { id: string; from: string };
  contacts?: ContactCard[];
}

/** A delivery or read receipt travelling back to the sender. */
export interface ReceiptPacket {
  kind: 'receipt';
  /** The number that received or read the message. */
  from: string;
  messageId: string;
  /** Chat the message belongs to, as the original sender sees it. */
  chatJid: string;
  status: 'delivered' | 'read' | 'played';
  timestamp: number;
}

/** A chat presence (typing, recording…); dropped when the peer is offline. */
export interface PresencePacket {
  kind: 'presence';
  from: string;
  status: 'unavailable' | 'available' | 'composing' | 'recording' | 'paused';
}

/**
 * A call signal between sandbox phones: `offer` from the caller, `ringing` back from the callee's
 * phone when the offer reaches it, `accept`/`reject` from the callee, `terminate` from either side,
 * `timeout` from the caller's phone when nobody answered in time.
 */
export interface CallPacket {
  kind: 'call';
  action: 'offer' | 'ringing' | 'accept' | 'reject' | 'terminate' | 'timeout';
  callId: string;
  /** Number of the phone sending this signal. */
  from: string;
  isVideo: boolean;
  /** Unix seconds. */
  timestamp: number;
  /**
   * On an `offer`: epoch ms when the call stops ringing unanswered, the deadline both phones time it
   * out at. Offers sent before it was carried count their ring time from `timestamp`.
   */
  ringUntil?: number;
}

/** The disappearing-messages timer one side of a direct chat set; the other side's chat follows it. */
export interface EphemeralPacket {
  kind: 'ephemeral';
  from: string;
  /** Seconds, 0 when turned off. */
  expiration: number;
}

/**
 * Group and community notifications the network pushes to a member's phone (membership, subject,
 * settings…): the phone emits the carried events as they are, like a phone relaying the network's
 * notification stanzas. Kept in the mailbox while the phone is offline.
 */
export interface NotificationPacket {
  kind: 'notification';
  events: ChannelEventPayload[];
}

/** Anything the sandbox network carries. */
export type Packet = MessagePacket | ReceiptPacket | PresencePacket | CallPacket | EphemeralPacket | NotificationPacket;
