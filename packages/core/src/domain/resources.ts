/** A chat (spec 2.5). */
export interface Chat {
  id: string;
  name: string;
  /** Unix seconds of the last activity. */
  timestamp: number;
  unreadCount: number;
  pinned?: boolean;
  archived?: boolean;
  /** Unix seconds when the chat's mute ends; 0 when not muted. */
  mutedUntil?: number;
  /** Disappearing-messages timer in seconds, 0 when off. */
  ephemeralExpiration?: number;
  labels?: string[];
}

/** A contact (spec 2.6). */
export interface Contact {
  id: string;
  name: string;
  notify: string;
  imgUrl?: string;
  lid?: string;
}

/**
 * A change to a contact (the `contacts.upsert` event, {@link ContactRepository.upsert}): the given fields win,
 * absent ones stay as stored. `imgUrl: null` says the contact has no picture Parley can name (removed, or changed
 * to one whose URL is unknown): the stored `imgUrl` is removed.
 */
export type ContactChange = Partial<Omit<Contact, 'imgUrl'>> & { id: string; imgUrl?: string | null };

/** Group participant role: `superadmin`, `admin`, or null for a regular member (spec 2.7). */
export type ParticipantRole = 'superadmin' | 'admin' | null;

/** A group member (spec 2.7). */
export interface GroupParticipant {
  id: string;
  admin: ParticipantRole;
}

/** A group (spec 2.7). */
export interface Group {
  id: string;
  subject: string;
  owner: string;
  /** Unix seconds. */
  creation: number;
  desc: string;
  participants: GroupParticipant[];
  announce?: boolean;
  restrict?: boolean;
  ephemeralDuration?: number;
  /** Parent community id when the group is linked to one. */
  linkedParent?: string;
  joinApprovalMode?: boolean;
  memberAddMode?: 'admin_add' | 'all_member_add';
  /** Picture URL, when the channel knows it (extension). */
  imgUrl?: string;
}

/** A community (spec 2.8). */
export interface Community {
  id: string;
  name: string;
  subject: string;
  description: string;
  participants: GroupParticipant[];
  owner?: string;
  creation?: number;
  /** Groups linked to the community. */
  groups?: string[];
  announce?: boolean;
  /** Only admins edit the community's info (`locked`). */
  restrict?: boolean;
  ephemeralDuration?: number;
  memberAddMode?: 'admin_add' | 'all_member_add';
  joinApprovalMode?: boolean;
  /** Picture URL, when the channel knows it (extension). */
  imgUrl?: string;
}

/** A pending join request of a group or community. */
export interface JoinRequest {
  jid: string;
  /** Unix seconds. */
  requestTime: number;
  requestMethod?: string;
}

/** Action on pending join requests. */
export type JoinRequestAction = 'approve' | 'reject';

/** Result of a participant change, one per participant. */
export interface ParticipantResult {
  jid: string;
  /** Protocol status: `200` on success, `403`/`404`/`409`… otherwise. */
  status: string;
  /**
   * An add the person's privacy settings refuse (`403`): the invitation the network offers instead, its
   * `code` valid until `expiration` (Unix seconds). WhatsApp only.
   */
  addRequest?: { code: string; expiration: number };
}

/** Summary of a group or community behind an invite code. */
export interface InviteInfo {
  id: string;
  subject: string;
  owner?: string;
  desc?: string;
  size: number;
  creation?: number;
  isCommunity?: boolean;
}

/** A label (spec 2.9). Colors are WhatsApp's palette indexes 0–19. */
export interface Label {
  id: string;
  name: string;
  color: number;
}

/** A catalog product (spec 2.10). */
export interface Product {
  id: string;
  name: string;
  description: string;
  currency: string;
  price: number;
  images: { url: string }[];
  originCountryCode?: string;
  retailerId?: string;
  url?: string;
  isHidden?: boolean;
}

/** Product fields on creation or update. */
export type ProductInput = Omit<Product, 'id'>;

/** A page of catalog products (spec 4.12); `cursor` is absent on the last page. */
export interface ProductPage {
  products: Product[];
  cursor?: string;
}

/** A catalog collection. */
export interface Collection {
  id: string;
  name: string;
  products: Product[];
}

/** An order (spec 4.12; fields not shown in the spec, so they follow WhatsApp's order details). */
export interface Order {
  id: string;
  price: { total: number; currency: string };
  products: { id: string; name: string; price: number; quantity: number; currency: string; imageUrl?: string }[];
}

/** A call (spec 2.11). */
export interface Call {
  callId: string;
  peerJid: string;
  isVideo?: boolean;
  status?: CallStatus;
}

/** Lifecycle of a call. */
export type CallStatus = 'offer' | 'ringing' | 'accept' | 'reject' | 'timeout' | 'terminate';

/** A contact card input (spec 2.12). */
export interface ContactCard {
  fullName: string;
  phoneNumber: string;
  organization?: string;
}

/** Chat presence (spec 3). */
export type PresenceStatus = 'unavailable' | 'available' | 'composing' | 'recording' | 'paused';

/** A contact's about text (spec 4.9 status; fields not shown, so they follow WhatsApp's). */
export interface ContactStatus {
  jid: string;
  status: string | null;
  /** Unix seconds when it was set, if known. */
  setAt?: number;
}

/** Privacy settings of the account (spec 4.5; fields follow WhatsApp's privacy categories). */
export type PrivacySettings = Record<string, string>;

/**
 * WhatsApp's privacy categories and the values each takes (Baileys 7.0.0-rc14 Types/Chat.d.ts: WAPrivacyValue,
 * WAPrivacyOnlineValue, WAPrivacyGroupAddValue, WAReadReceiptsValue, WAPrivacyCallValue, WAPrivacyMessagesValue).
 */
export const PRIVACY_VALUES: Readonly<Record<string, readonly string[]>> = {
  readreceipts: ['all', 'none'],
  profile: ['all', 'contacts', 'contact_blacklist', 'none'],
  status: ['all', 'contacts', 'contact_blacklist', 'none'],
  online: ['all', 'match_last_seen'],
  last: ['all', 'contacts', 'contact_blacklist', 'none'],
  groupadd: ['all', 'contacts', 'contact_blacklist'],
  calladd: ['all', 'known'],
  messages: ['all', 'contacts'],
};

/** A posted status story (spec 4.13). */
export interface StatusStory {
  id: string;
  type: 'text' | 'image' | 'video' | 'audio' | 'mention';
  /** Contacts the story is visible to. */
  statusJidList: string[];
  /** Unix seconds. */
  timestamp: number;
}

/** LID → phone-number resolution result (spec 4.9). */
export interface LidMapping {
  lid: string;
  /** Phone-number JID, or null when unknown. */
  jid: string | null;
}
