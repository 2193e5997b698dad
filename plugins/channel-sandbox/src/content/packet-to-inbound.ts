import { isGroupJid, jidUser, USER_SUFFIX, type InboundContent, type InboundMedia, type InboundMessage } from '@parley/core';
import type { MessagePacket } from '../sandbox-packets.js';

type Fields = Record<string, unknown>;

/** Members that sit beside the typed member of a message without being its content. */
const NOT_CONTENT = new Set(['messageContextInfo', 'senderKeyDistributionMessage']);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The typed member of a proto-shaped message: its name and fields. */
export function typedMember(message: Record<string, unknown>): [string, Fields] {
  const entry = Object.entries(message).find(([name]) => !NOT_CONTENT.has(name));
  if (!entry) return ['unknown', {}];
  const [name, value] = entry;
  return [name, value !== null && typeof value === 'object' ? (value as Fields) : { value }];
}

/** Media of a received message: served by message id (spec 4.4); the digest comes from `fileSha256` (base64). */
function media(messageId: string, m: Fields, fallbackMime: string): InboundMedia {
  const digest = str(m.fileSha256);
  return {
    id: messageId,
    mimeType: str(m.mimetype) ?? fallbackMime,
    sha256: digest ? Buffer.from(digest, 'base64').toString('hex') : '',
    ...(str(m.caption) ? { caption: str(m.caption)! } : {}),
  };
}

function card(m: Fields): { formattedName: string; vcard: string } {
  return { formattedName: str(m.displayName) ?? '', vcard: str(m.vcard) ?? '' };
}

function params(json: unknown): Fields {
  if (typeof json !== 'string') return {};
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' ? (value as Fields) : {};
  } catch {
    return {};
  }
}

/** A native-flow answer: a list row (`single_select`) or a tapped button. */
function interactiveReply(m: Fields): InboundContent {
  const flow = (m.nativeFlowResponseMessage ?? {}) as Fields;
  const p = params(flow.paramsJson);
  const body = str((m.body as Fields | undefined)?.text);
  if (flow.name === 'single_select') {
    return { type: 'list_reply', id: str(p.id) ?? '', title: str(p.title) ?? body ?? '', ...(str(p.description) ? { description: str(p.description)! } : {}) };
  }
  return { type: 'button_reply', id: str(p.id) ?? '', title: body ?? str(p.display_text) ?? '' };
}

/**
 * Normalizes a proto-shaped message (spec 2.4) to the content of spec 6.3. Media ids are the message
 * id; a live location reads as a location and a video note as a video; every other member becomes
 * `unsupported` with its name.
 */
export function inboundContentOf(message: Record<string, unknown>, messageId: string): InboundContent {
  const [type, m] = typedMember(message);
  switch (type) {
    case 'conversation':
      return { type: 'text', body: String(m.value ?? '') };
    case 'extendedTextMessage':
      return { type: 'text', body: str(m.text) ?? '' };
    case 'imageMessage':
      return { type: 'image', media: media(messageId, m, 'image/jpeg') };
    case 'videoMessage':
    case 'ptvMessage':
      return { type: 'video', media: media(messageId, m, 'video/mp4') };
    case 'audioMessage':
      return { type: 'audio', media: media(messageId, m, 'audio/ogg'), voice: m.ptt === true };
    case 'documentMessage':
      return { type: 'document', media: media(messageId, m, 'application/octet-stream'), filename: str(m.fileName) ?? '' };
    case 'stickerMessage':
      return { type: 'sticker', media: media(messageId, m, 'image/webp'), animated: m.isAnimated === true };
    case 'locationMessage':
      return {
        type: 'location', latitude: num(m.degreesLatitude), longitude: num(m.degreesLongitude),
        ...(str(m.name) ? { name: str(m.name)! } : {}), ...(str(m.address) ? { address: str(m.address)! } : {}),
      };
    case 'liveLocationMessage':
      return { type: 'location', latitude: num(m.degreesLatitude), longitude: num(m.degreesLongitude) };
    case 'contactMessage':
      return { type: 'contacts', contacts: [card(m)] };
    case 'contactsArrayMessage':
      return { type: 'contacts', contacts: (Array.isArray(m.contacts) ? (m.contacts as Fields[]) : []).map(card) };
    case 'reactionMessage': {
      // An empty text removes the reaction (spec 6.3 message-reaction-removed).
      const emoji = str(m.text);
      return { type: 'reaction', messageId: str((m.key as Fields | undefined)?.id) ?? '', ...(emoji ? { emoji } : {}) };
    }
    case 'buttonsResponseMessage':
      return { type: 'button', text: str(m.selectedDisplayText) ?? '', payload: str(m.selectedButtonId) ?? '' };
    case 'templateButtonReplyMessage':
      return { type: 'button', text: str(m.selectedDisplayText) ?? '', payload: str(m.selectedId) ?? '' };
    case 'listResponseMessage':
      return {
        type: 'list_reply', id: str((m.singleSelectReply as Fields | undefined)?.selectedRowId) ?? '', title: str(m.title) ?? '',
        ...(str(m.description) ? { description: str(m.description)! } : {}),
      };
    case 'interactiveResponseMessage':
      return interactiveReply(m);
    default:
      return { type: 'unsupported', typeName: type };
  }
}

/**
 * A received message as Baileys' `cleanMessage` (Utils/process-message.js) leaves it: the key of a
 * reaction is turned to the receiver's view. `fromMe` says whether the reacted message is the
 * receiver's own, `remoteJid` is the chat, and `participant` is the one the key named, else the
 * sender's participant: the member in a group, '' in a direct chat (`jidNormalizedUser(undefined)`).
 */
function asReceived(message: Record<string, unknown>, chatJid: string, senderParticipant: string, receiver: { jid: string; lid: string }): Record<string, unknown> {
  const reaction = message.reactionMessage as Fields | undefined;
  const key = reaction?.key as Fields | undefined;
  if (!reaction || !key) return message;
  const author = str(key.participant) ?? str(key.remoteJid) ?? '';
  const own = author === receiver.lid || (author.endsWith(USER_SUFFIX) && jidUser(author) === jidUser(receiver.jid));
  const { remoteJid: _chat, fromMe: _fromMe, id, participant: _participant, ...rest } = key;
  return {
    ...message,
    reactionMessage: { ...reaction, key: { remoteJid: chatJid, fromMe: key.fromMe === true ? false : own, id, participant: str(key.participant) ?? senderParticipant, ...rest } },
  };
}

/** The InboundMessage a receiving phone (`receiver`) emits for a packet. */
export function inboundFromPacket(packet: MessagePacket, receiver: { jid: string; lid: string }): InboundMessage {
  const senderJid = `${packet.from}${USER_SUFFIX}`;
  const chatJid = packet.groupJid ?? senderJid;
  return {
    id: packet.id,
    chatJid,
    from: packet.from,
    fromMe: false,
    timestamp: packet.timestamp,
    // Status stories also carry a chat beside the sender (`status@broadcast`) but are not group messages.
    chatType: packet.groupJid && isGroupJid(packet.groupJid) ? 'group' : 'individual',
    ...(packet.groupJid && isGroupJid(packet.groupJid) ? { groupId: packet.groupJid } : {}),
    pushName: packet.fromName,
    content: inboundContentOf(packet.message, packet.id),
    ...(packet.quoted ? { context: { from: packet.quoted.from, id: packet.quoted.id } } : {}),
    record: {
      key: { remoteJid: chatJid, fromMe: false, id: packet.id, ...(packet.groupJid ? { participant: senderJid } : {}) },
      message: asReceived(packet.message, chatJid, packet.groupJid ? senderJid : '', receiver),
      messageTimestamp: String(packet.timestamp),
      status: 'DELIVERY_ACK',
      pushName: packet.fromName,
    },
  };
}
