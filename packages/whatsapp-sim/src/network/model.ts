import type { BinaryNode, LTHashState, proto } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import type { DeviceKeys } from './device-keys.js';
import type { SimPhone } from './phone.js';

export type { DeviceKeys } from './device-keys.js';

/** A linked companion device (a Baileys client, WhatsApp Web, …) of an account. */
export interface CompanionDevice {
  id: number;
  /** `number:id@s.whatsapp.net` */
  jid: string;
  /** `lid:id@lid` */
  lidJid: string;
  /** The client's static Noise key; a login must come from the same key. */
  noiseKey: Buffer;
  keys: DeviceKeys;
  /** ADV key index the phone signed this device under. */
  keyIndex: number;
  /** The device's signed identity (account and device signatures), handed to peers with its key bundle. */
  signedIdentity: proto.IADVSignedDeviceIdentity | undefined;
  platform: string;
  linkedAt: Date;
  /** The socket the device is logged in on, if any. */
  connection: ClientConnection | undefined;
  /** Stanzas stored while the device was offline, delivered at its next login. */
  pending: BinaryNode[];
  /** Whether the phone already sent this device its initial history. */
  historySent: boolean;
}

/** A WhatsApp account: a phone number, its LID, its phone (device 0) and its companions. */
export interface Account {
  /** Digits only, with country code. */
  number: string;
  /** Digits of the account's LID (`lid@lid`). */
  lid: string;
  pushName: string;
  business: boolean;
  /** The form of the number people dial when WhatsApp files the account under another (NINTH_DIGIT). */
  dialled: string | undefined;
  /** Whether the server refuses the account's messages (RESTRICTED_ACCOUNT). */
  restricted: boolean;
  /** Whether its 1:1 messages reach others' companions from its LID (AccountOptions.lidAddressed). */
  lidAddressed: boolean;
  phone: SimPhone;
  companions: Map<number, CompanionDevice>;
  nextDeviceId: number;
  nextKeyIndex: number;
  /** The account's random ADV id (`rawId` in device identities). */
  advRawId: number;
  /** The phone's chat history (WhatsApp's `HistorySync` conversations), sent to each new companion on link. */
  history: proto.IConversation[];
  /** The phone's state of each chat (by JID), sent with its history (`features/chat-state.ts`). */
  chats: Map<string, ChatState>;
  /** The phone's address book and labels, kept from app-state changes as its chat states are (`features/chat-state.ts`). */
  book: PhoneBook;
  appState: PhoneAppState;
  /** The profile others see (besides `pushName`), the privacy settings and the block list. */
  social: SocialState;
}

/** A chat's state on the phone, in the units of WhatsApp's history `Conversation`. */
export interface ChatState {
  /** Unix seconds of the pin, 0 when not pinned. */
  pinned?: number;
  archived?: boolean;
  /** When the mute ends, as the mute action carried it (Unix milliseconds); 0 when not muted, -1 always. */
  muteEndTime?: number;
  /** Marked unread by the user (a read chat flagged unread). */
  markedAsUnread?: boolean;
  /** Messages the phone has not read. */
  unreadCount?: number;
  /** The 1:1 disappearing timer in seconds (0 off) and when it was set (Unix seconds). */
  ephemeralExpiration?: number;
  ephemeralSettingTimestamp?: number;
}

/** The phone's saved contacts (by the JID the contact action is indexed by) and its labels with the chats carrying each. */
export interface PhoneBook {
  contacts: Map<string, { fullName?: string; firstName?: string }>;
  labels: Map<string, { name: string; color: number; chats: Set<string> }>;
}

/** Privacy settings of a new account, as WhatsApp names the categories (whatsmeow types/user.go PrivacySettingType). */
export const DEFAULT_PRIVACY: Readonly<Record<string, string>> = {
  last: 'all', online: 'all', profile: 'all', status: 'contacts', readreceipts: 'all', groupadd: 'all', calladd: 'all', messages: 'all',
};

/** An account's about text, profile picture, privacy settings and block list. */
export interface SocialState {
  status: string;
  /** Unix seconds of the last about change (0: never set). */
  statusAt: number;
  /** The picture (a JPEG) with its id and where the media host serves it, if the account has one. */
  picture: { id: string; data: Buffer; directPath: string; url: string } | undefined;
  privacy: Record<string, string>;
  /** Numbers of the accounts this one blocked. */
  blocked: Set<string>;
}

export function newSocialState(): SocialState {
  return { status: '', statusAt: 0, picture: undefined, privacy: { ...DEFAULT_PRIVACY }, blocked: new Set() };
}

/** Whether `receiver` blocked `sender`: the server relays nothing from the sender to the receiver's devices. */
export function blocks(receiver: Account, sender: Account): boolean {
  return receiver !== sender && receiver.social.blocked.has(sender.number);
}

/**
 * The account's app state (syncd) as the server keeps it: the key the phone shares with its companions and,
 * per collection, the phone's LT-hash state and the encoded patches in version order (patch i is version i+1).
 */
export interface PhoneAppState {
  keyId: Buffer;
  keyData: Buffer;
  collections: Map<string, { state: LTHashState; patches: Buffer[] }>;
}

/** What the control API shows of an account. */
export interface AccountView {
  number: string;
  jid: string;
  lid: string;
  pushName: string;
  business: boolean;
  /** The 9-digit form of a number WhatsApp files under its 8-digit form, which usync answers with `jid`. */
  dialled?: string;
  restricted: boolean;
  devices: Array<{ id: number; jid: string; lid: string; platform: string; online: boolean; linkedAt: string }>;
}

export function viewOf(account: Account): AccountView {
  return {
    number: account.number,
    jid: `${account.number}@s.whatsapp.net`,
    lid: `${account.lid}@lid`,
    pushName: account.pushName,
    business: account.business,
    ...(account.dialled ? { dialled: account.dialled } : {}),
    restricted: account.restricted,
    devices: [...account.companions.values()].map((d) => ({
      id: d.id, jid: d.jid, lid: d.lidJid, platform: d.platform, online: !!d.connection?.isOpen, linkedAt: d.linkedAt.toISOString(),
    })),
  };
}
