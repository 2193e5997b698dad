import type { ContactCard } from '@parley/core';

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

/** Anything the sandbox network carries. */
export type Packet = MessagePacket | ReceiptPacket | PresencePacket;
