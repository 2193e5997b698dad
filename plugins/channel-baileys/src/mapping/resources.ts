import type { Chat, Community, Contact, ContactChange, Group, GroupParticipant, InviteInfo, JoinRequest, ParticipantResult, Product } from '@parley/core';
import {
  getBinaryNodeChild, isJidGroup, toNumber, type BinaryNode, type Chat as WAChat, type ChatUpdate, type Contact as WAContact, type GroupMetadata, type GroupParticipant as WAParticipant,
  type Product as WAProduct,
} from '@whiskeysockets/baileys';
import { isLidJid, isPnJid, normalizeJid, preferPn } from '../util/jids.js';

/** A participant's phone-number JID when WhatsApp gives it, else its id (often a LID). */
export function participantJid(p: Pick<WAParticipant, 'id' | 'phoneNumber'>): string {
  return isPnJid(p.phoneNumber) ? normalizeJid(p.phoneNumber) : p.id;
}

function participant(p: WAParticipant): GroupParticipant {
  return { id: participantJid(p), admin: p.admin ?? (p.isSuperAdmin ? 'superadmin' : p.isAdmin ? 'admin' : null) };
}

const addMode = (m: boolean): Group['memberAddMode'] => (m ? 'all_member_add' : 'admin_add');

/** Spec 2.7 group of a Baileys group. */
export function toGroup(meta: GroupMetadata): Group {
  return {
    id: meta.id,
    subject: meta.subject ?? '',
    owner: meta.ownerPn ?? meta.owner ?? '',
    creation: meta.creation ?? 0,
    desc: meta.desc ?? '',
    participants: (meta.participants ?? []).map(participant),
    ...(meta.announce !== undefined ? { announce: meta.announce } : {}),
    ...(meta.restrict !== undefined ? { restrict: meta.restrict } : {}),
    ...(meta.ephemeralDuration !== undefined ? { ephemeralDuration: meta.ephemeralDuration } : {}),
    ...(meta.linkedParent ? { linkedParent: meta.linkedParent } : {}),
    ...(meta.joinApprovalMode !== undefined ? { joinApprovalMode: meta.joinApprovalMode } : {}),
    ...(meta.memberAddMode !== undefined ? { memberAddMode: addMode(meta.memberAddMode) } : {}),
  };
}

/** The fields of a partial group update (`groups.update`), keeping only what changed. */
export function groupChange(meta: Partial<GroupMetadata> & { id: string }): Partial<Group> & { id: string } {
  const change: Partial<Group> & { id: string } = { id: meta.id };
  if (meta.subject !== undefined) change.subject = meta.subject;
  if (meta.desc !== undefined) change.desc = meta.desc;
  if (meta.owner !== undefined || meta.ownerPn !== undefined) change.owner = meta.ownerPn ?? meta.owner ?? '';
  if (meta.creation !== undefined) change.creation = meta.creation;
  if (meta.participants !== undefined) change.participants = meta.participants.map(participant);
  if (meta.announce !== undefined) change.announce = meta.announce;
  if (meta.restrict !== undefined) change.restrict = meta.restrict;
  if (meta.ephemeralDuration !== undefined) change.ephemeralDuration = meta.ephemeralDuration;
  if (meta.linkedParent !== undefined) change.linkedParent = meta.linkedParent;
  if (meta.joinApprovalMode !== undefined) change.joinApprovalMode = meta.joinApprovalMode;
  if (meta.memberAddMode !== undefined) change.memberAddMode = addMode(meta.memberAddMode);
  return change;
}

/** Spec 2.8 community of a Baileys community; `groups` are the linked group ids when known. */
export function toCommunity(meta: GroupMetadata, groups?: string[]): Community {
  return {
    id: meta.id,
    name: meta.subject ?? '',
    subject: meta.subject ?? '',
    description: meta.desc ?? '',
    participants: (meta.participants ?? []).map(participant),
    ...(meta.ownerPn ?? meta.owner ? { owner: meta.ownerPn ?? meta.owner } : {}),
    ...(meta.creation !== undefined ? { creation: meta.creation } : {}),
    ...(groups ? { groups } : {}),
    ...(meta.announce !== undefined ? { announce: meta.announce } : {}),
    ...(meta.ephemeralDuration !== undefined ? { ephemeralDuration: meta.ephemeralDuration } : {}),
    ...(meta.memberAddMode !== undefined ? { memberAddMode: addMode(meta.memberAddMode) } : {}),
    ...(meta.joinApprovalMode !== undefined ? { joinApprovalMode: meta.joinApprovalMode } : {}),
  };
}

/** Summary behind an invite code. */
export function toInviteInfo(meta: GroupMetadata): InviteInfo {
  return {
    id: meta.id,
    subject: meta.subject ?? '',
    ...(meta.ownerPn ?? meta.owner ? { owner: meta.ownerPn ?? meta.owner } : {}),
    ...(meta.desc ? { desc: meta.desc } : {}),
    size: meta.size ?? meta.participants?.length ?? 0,
    ...(meta.creation !== undefined ? { creation: meta.creation } : {}),
    ...(meta.isCommunity !== undefined ? { isCommunity: meta.isCommunity } : {}),
  };
}

/**
 * Results of a participant change, each member by number as elsewhere: a LID-addressed group answers
 * `<participant jid="…@lid" phone_number="…">` (whatsmeow group.go parseParticipant), which Baileys passes as
 * `content` (groupParticipantsUpdate) or drops (the join-request answer): `known` resolves a LID named alone.
 * An add the person's privacy refuses answers `error="403"` with `<add_request code expiration/>` (whatsmeow
 * parseParticipant reads it as GroupParticipant.AddRequest): kept as `addRequest`.
 */
export function participantResults(
  results: { status: string; jid: string | undefined; content?: BinaryNode }[], known: (lid: string) => string | undefined = () => undefined,
): ParticipantResult[] {
  return results.map((r) => {
    const pn = r.content?.attrs.phone_number;
    const jid = isPnJid(pn) ? normalizeJid(pn) : isLidJid(r.jid) ? (known(r.jid) ?? r.jid) : (r.jid ?? '');
    const request = r.content ? getBinaryNodeChild(r.content, 'add_request') : undefined;
    const expiration = Number(request?.attrs.expiration);
    const addRequest = request?.attrs.code && Number.isInteger(expiration) ? { addRequest: { code: request.attrs.code, expiration } } : {};
    return { jid, status: r.status, ...addRequest };
  });
}

/** Pending join requests, from the attribute maps Baileys answers. */
export function joinRequests(list: { [key: string]: string }[]): JoinRequest[] {
  return list.map((r) => ({
    jid: isPnJid(r.phone_number) ? r.phone_number : (r.jid ?? ''),
    requestTime: Number(r.request_time ?? 0),
    ...(r.request_method ? { requestMethod: r.request_method } : {}),
  }));
}

/** The chat fields a Baileys chat (or chat update) carries. */
export function chatChange(chat: WAChat | ChatUpdate): (Partial<Chat> & { id: string }) | undefined {
  const id = preferPn(chat.id, chat.pnJid);
  if (!id) return undefined;
  const change: Partial<Chat> & { id: string } = { id };
  const name = chat.name ?? chat.displayName;
  if (name) change.name = name;
  const ts = chat.conversationTimestamp ?? chat.lastMessageRecvTimestamp;
  if (ts !== undefined && ts !== null) change.timestamp = toNumber(ts);
  if (chat.unreadCount !== undefined && chat.unreadCount !== null) change.unreadCount = Math.max(0, chat.unreadCount);
  if (chat.pinned !== undefined && chat.pinned !== null) change.pinned = chat.pinned > 0;
  if (chat.archived !== undefined && chat.archived !== null) change.archived = chat.archived;
  if (chat.muteEndTime !== undefined && chat.muteEndTime !== null) change.mutedUntil = mutedUntil(chat.muteEndTime);
  if (chat.ephemeralExpiration !== undefined && chat.ephemeralExpiration !== null) change.ephemeralExpiration = chat.ephemeralExpiration;
  // A timer turned off: Baileys writes the EPHEMERAL_SETTING's 0 as null beside the setting's time (Utils/process-message.js).
  else if (chat.ephemeralExpiration === null && chat.ephemeralSettingTimestamp) change.ephemeralExpiration = 0;
  return change;
}

/**
 * A Baileys `muteEndTime` in Unix seconds (0: not muted). A history conversation carries it in seconds
 * (WAProto Conversation.muteEndTime), an app-state mute action in milliseconds (Baileys processSyncAction
 * passes `muteEndTimestamp` on): a value past the year 5138 in seconds is milliseconds.
 */
function mutedUntil(value: Parameters<typeof toNumber>[0]): number {
  if (value === null || value === undefined) return 0;
  const n = toNumber(value);
  if (n <= 0) return 0;
  return n > 1e11 ? Math.floor(n / 1000) : n;
}

/**
 * The chat fields of a `chats.update`. There Baileys writes a positive `unreadCount` as an increment
 * (one per message it just received), which the host already counts from the message events; 0 means
 * read on the phone, and -1 marked unread, which WhatsApp offers only on a read chat: one unread.
 */
export function chatUpdateChange(update: ChatUpdate): (Partial<Chat> & { id: string }) | undefined {
  const change = chatChange({ ...update, unreadCount: undefined });
  if (!change) return undefined;
  // An unmute: Baileys' processSyncAction writes the mute action's end as null.
  if (update.muteEndTime === null) change.mutedUntil = 0;
  const unread = update.unreadCount;
  if (unread === 0) change.unreadCount = 0;
  else if (typeof unread === 'number' && unread < 0) change.unreadCount = 1;
  return change;
}

/** A full chat (history sync), defaults filled the way the chat repository fills them. */
export function fullChat(chat: WAChat): Chat | undefined {
  const change = chatChange(chat);
  if (!change) return undefined;
  return { name: change.id, timestamp: 0, unreadCount: 0, ...change } as Chat;
}

/**
 * Baileys' `imgUrl` sentinels of a picture notification (`<notification type="picture">`, Socket/messages-recv.js):
 * `changed` for `<set>` (a new picture, its URL not fetched), `removed` for `<delete>`. Neither is a URL.
 */
export const PICTURE_CHANGED = 'changed';
const PICTURE_REMOVED = 'removed';

/**
 * The contact fields a Baileys contact (or contact update) carries; none for a group, which Baileys also
 * reports through `contacts.update` when its picture changes (`<notification type="picture">` from the group).
 * A removed picture is `imgUrl: null` (none); a changed one carries no `imgUrl` (its URL is fetched afterwards:
 * events/contact-pictures.ts); only a URL is a URL.
 */
export function contactChange(contact: Partial<WAContact>): ContactChange | undefined {
  const id = preferPn(contact.id, contact.phoneNumber);
  if (!id || isJidGroup(id)) return undefined;
  const change: ContactChange = { id };
  if (contact.name !== undefined) change.name = contact.name;
  const notify = contact.notify ?? contact.verifiedName;
  if (notify !== undefined) change.notify = notify;
  if (contact.imgUrl === PICTURE_REMOVED) change.imgUrl = null;
  else if (typeof contact.imgUrl === 'string' && contact.imgUrl !== PICTURE_CHANGED) change.imgUrl = contact.imgUrl;
  const lid = contact.lid ?? (contact.id?.endsWith('@lid') ? contact.id : undefined);
  if (lid && lid !== id) change.lid = lid;
  return change;
}

/** A full contact (history sync). */
export function fullContact(contact: WAContact): Contact | undefined {
  const change = contactChange(contact);
  if (!change) return undefined;
  const { imgUrl, ...fields } = change;
  return { name: '', notify: '', ...fields, ...(imgUrl ? { imgUrl } : {}) } as Contact;
}

/** Spec 2.10 product of a Baileys catalog product. */
export function toProduct(p: WAProduct): Product {
  const images = [...new Set(Object.values(p.imageUrls ?? {}).filter((u): u is string => typeof u === 'string' && u !== ''))];
  return {
    id: p.id,
    name: p.name ?? '',
    description: p.description ?? '',
    currency: p.currency ?? '',
    price: p.price ?? 0,
    images: images.map((url) => ({ url })),
    ...(p.retailerId ? { retailerId: p.retailerId } : {}),
    ...(p.url ? { url: p.url } : {}),
    ...(p.isHidden !== undefined ? { isHidden: p.isHidden } : {}),
  };
}
