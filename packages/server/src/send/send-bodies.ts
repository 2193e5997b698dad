import type { ActionButton, CallLinkType, ChannelName, ContactCard, PixItem, PresenceStatus } from '@parley/core';
import type { SendSuffix } from '../schemas/message.schemas.js';

/**
 * Optional members are absent or, for texts, possibly empty (read as absent). `quoted` is only in
 * the schemas of the types a reply can have (rich-send.schemas.ts).
 */
export interface Recipient { to: string; provider?: ChannelName; quoted?: { messageId: string } }
/** Who a text or caption mentions: numbers, user JIDs, or `everyone` (rich-send.schemas.ts). */
export interface Mentioning { mentions?: string[] }
type Header = { title: string };

/** The validated request bodies of spec 4.2, by path suffix (schemas in schemas/message.schemas.ts). */
export interface SendBodies {
  text: Recipient & Mentioning & { text: string; linkPreview?: boolean };
  image: Recipient & Mentioning & { url: string; caption?: string };
  audio: Recipient & { url: string };
  video: Recipient & Mentioning & { url: string; caption?: string };
  document: Recipient & { url: string; mimetype: string; fileName: string; caption?: string };
  sticker: Recipient & { url: string };
  'video-note': Recipient & { url: string };
  'base64/image': Recipient & Mentioning & { base64: string; caption?: string };
  'base64/audio': Recipient & { base64: string };
  'base64/document': Recipient & { base64: string; mimetype: string; fileName: string; caption?: string };
  contact: Recipient & { contact: ContactCard };
  contacts: Recipient & { displayName: string; contacts: ContactCard[] };
  location: Recipient & { location: { latitude: number; longitude: number; address?: string } };
  'live-location': Recipient & { latitude: number; longitude: number; caption?: string };
  link: Recipient & { title: string; text: string; description?: string; thumbnailUrl?: string; sourceUrl: string };
  reaction: { text: string; msgId: string };
  presence: Recipient & { status: PresenceStatus };
  title: Recipient & { title: string; text: string; footer?: string };
  button_reply: Recipient & { header?: Header; text: string; footer?: string; buttons: { type: 'quick_reply'; id: string; text: string }[] };
  button_action: Recipient & {
    header?: Header; text: string; footer?: string;
    buttons: { type: ActionButton['type']; text: string; url?: string; phone_number?: string; copy_code?: string }[];
  };
  survey: Recipient & { name: string; options: string[] };
  poll: Recipient & { name: string; values: string[]; selectableCount: number };
  pix: Recipient & {
    title: string; text: string; referenceId: string; code: string; key: string; merchantName: string; keyType: string; items: PixItem[];
    subtotal: number; totalAmount: number;
  };
  event: Recipient & { name: string; description?: string; startTime: string; locationName?: string; locationAddress?: string };
  pin: { id: string; duration: number };
  unpin: { id: string };
  'call-link': Recipient & { type: CallLinkType; caption?: string };
  'create-call-link': { type: CallLinkType };
  product: Recipient & { businessOwnerJid: string; productId: string; catalogId: string };
  'group-invite': Recipient & { groupJid: string; groupName: string; inviteCode: string };
  'request-phone': Recipient;
}

/** Path suffixes that send a message (presence and create-call-link do not). */
export type MessageSuffix = Exclude<SendSuffix, 'presence' | 'create-call-link'>;
