import { proto } from '@whiskeysockets/baileys';
import { SimError } from '../network/errors.js';
import type { MediaInput } from './media.js';

/** The ad a click-to-WhatsApp message came from (`contextInfo.externalAdReply`). */
export interface AdReferral {
  sourceUrl?: string;
  sourceId?: string;
  /** `ad` or `post`, as WhatsApp names the source. */
  sourceType?: string;
  /** The ad's headline (`title` on the wire). */
  headline?: string;
  body?: string;
  mediaType?: 'image' | 'video';
  thumbnailUrl?: string;
  ctwaClid?: string;
}

/**
 * Where a message points back to: the id of the message it answers or quotes and the number of that
 * message's author (default: the other party of a 1:1 chat, the receiving account).
 */
export interface Quoted {
  messageId: string;
  author?: string;
}

/**
 * A message a phone sends through `Simulator.sendMessage`, by kind. Media kinds are uploaded encrypted to
 * the media host; `reaction` with an empty `emoji` removes the phone's reaction; `edit` and `revoke` name a
 * message the same phone sent. `button`, `list` and `interactive` are replies to a business's buttons, list
 * or native-flow button; their optional `context` names the message they answer. `vote` and `rsvp` answer
 * a poll or an event the phone received (encrypted with its `messageSecret`, `answers.ts`).
 */
export type PhoneMessageInput =
  | MediaInput
  | { kind: 'location'; latitude: number; longitude: number; name?: string; address?: string }
  | { kind: 'contacts'; contacts: Array<{ name: string; number?: string; vcard?: string }> }
  | { kind: 'reaction'; messageId: string; emoji: string; author?: string }
  | { kind: 'button'; id: string; text: string; template?: boolean; context?: Quoted }
  | { kind: 'list'; id: string; title: string; description?: string; context?: Quoted }
  | { kind: 'interactive'; id: string; title: string; context?: Quoted }
  | { kind: 'reply'; text: string; quoted: Quoted & { text?: string } }
  | { kind: 'mention'; text: string; mentions: string[] }
  | { kind: 'referral'; text: string; ad: AdReferral }
  | { kind: 'edit'; messageId: string; text: string; bare?: boolean }
  | { kind: 'revoke'; messageId: string }
  | VoteInput
  | RsvpInput;

/** A phone's vote on a poll it received: the options it now chooses, by name (none withdraws its vote). */
export interface VoteInput {
  kind: 'vote';
  /** Id of the poll message. */
  messageId: string;
  options: string[];
}

/** A phone's answer (RSVP) to an event it received, with the guests it brings along. */
export interface RsvpInput {
  kind: 'rsvp';
  /** Id of the event message. */
  messageId: string;
  response: 'going' | 'not_going' | 'maybe';
  extraGuests?: number;
}

/** Every kind `sendMessage` takes (the control route's `{kind}`). */
export const MESSAGE_KINDS = [
  'image', 'audio', 'document', 'video', 'sticker', 'location', 'contacts', 'reaction', 'button', 'list', 'interactive', 'reply', 'mention', 'referral', 'edit', 'revoke', 'vote', 'rsvp',
] as const;

/** The chat a message goes to, as the sending phone sees it. */
export interface Chat {
  /** The sender's own JID. */
  fromJid: string;
  /** The recipient's JID, or the group's. */
  jid: string;
  group: boolean;
  /** The recipient's number (1:1 only): whose message a reaction or quote targets by default. */
  peer?: string;
  /** How the chat names the account of a number in a message's content (mentions, quotes, reaction keys): a LID-addressed group by LID. */
  userJid?: (number: string) => string;
}

/** Most characters of any text member (WhatsApp's limit is 65 536). */
const MAX_TEXT = 65_536;
const MAX_CONTACTS = 257;
/** Most members one message mentions (a group's size). */
const MAX_MENTIONS = 1024;

const invalid = (message: string, field: string): SimError => new SimError(400, 'invalid_message', message, { field });

function required(value: unknown, field: string, max = MAX_TEXT): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw invalid(`${field} must be a non-empty string of at most ${max} characters`, field);
  return value;
}

function optional(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > MAX_TEXT) throw invalid(`${field} must be a string of at most ${MAX_TEXT} characters`, field);
  return value;
}

function coordinate(value: unknown, field: string, limit: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) throw invalid(`${field} must be a number from -${limit} to ${limit}`, field);
  return value;
}

function jidOf(number: string): string {
  return `${String(number).replace(/^\+/, '')}@s.whatsapp.net`;
}

/**
 * The account of `number` as `chat` names it in a message's content: in a LID-addressed group by LID, as that
 * group names its members everywhere (group-addressing.ts), in mentions, quotes (`contextInfo.participant`)
 * and reaction keys alike (the key's `participant` is the author's JID as the message named it: Baileys
 * Utils/generics.js getKeyAuthor falls back to it when the key carries no `participantAlt`).
 */
function userJidOf(chat: Chat, number: string): string {
  const digits = String(number).replace(/^\+/, '');
  return chat.userJid ? chat.userJid(digits) : jidOf(digits);
}

/** `contextInfo` naming a message: its id, its author and (for quotes) its content. */
function contextOf(chat: Chat, quoted: Quoted | undefined, field: string, quotedText?: string): proto.IContextInfo | undefined {
  if (quoted === undefined) return undefined;
  if (!quoted || typeof quoted !== 'object') throw invalid(`${field} must be an object { messageId, author? }`, field);
  const author = quoted.author === undefined ? chat.peer : required(quoted.author, `${field}.author`, 20);
  if (!author) throw invalid(`${field}.author is required in a group`, `${field}.author`);
  return {
    stanzaId: required(quoted.messageId, `${field}.messageId`, 128),
    participant: userJidOf(chat, author),
    ...(quotedText === undefined ? {} : { quotedMessage: { conversation: quotedText } }),
  };
}

/** The key of a message in `chat` by `author` (a number), as the sending phone names it. */
function keyOf(chat: Chat, messageId: unknown, author: string | undefined, field: string): proto.IMessageKey {
  const authorNumber = author === undefined ? chat.peer : required(author, 'author', 20).replace(/^\+/, '');
  if (!authorNumber) throw invalid('author is required in a group', 'author');
  const fromMe = jidOf(authorNumber) === chat.fromJid;
  return { remoteJid: chat.jid, fromMe, id: required(messageId, field, 128), ...(chat.group && !fromMe ? { participant: userJidOf(chat, authorNumber) } : {}) };
}

function vcardOf(contact: { name: string; number?: string; vcard?: string }, index: number): proto.Message.IContactMessage {
  if (!contact || typeof contact !== 'object') throw invalid(`contacts[${index}] must be an object { name, number?, vcard? }`, `contacts[${index}]`);
  const name = required(contact.name, `contacts[${index}].name`, 1024);
  const number = contact.number === undefined ? undefined : required(contact.number, `contacts[${index}].number`, 20).replace(/^\+/, '');
  if (number !== undefined && !/^\d{6,15}$/.test(number)) throw invalid(`contacts[${index}].number must be 6 to 15 digits`, `contacts[${index}].number`);
  const tel = number ? `TEL;type=CELL;waid=${number}:+${number}\n` : '';
  const vcard = optional(contact.vcard, `contacts[${index}].vcard`) ?? `BEGIN:VCARD\nVERSION:3.0\nFN:${name}\n${tel}END:VCARD`;
  return { displayName: name, vcard };
}

const AD_MEDIA = { image: proto.ContextInfo.ExternalAdReplyInfo.MediaType.IMAGE, video: proto.ContextInfo.ExternalAdReplyInfo.MediaType.VIDEO };

function adReply(ad: AdReferral): proto.ContextInfo.IExternalAdReplyInfo {
  if (!ad || typeof ad !== 'object' || Array.isArray(ad)) throw invalid('ad must be an object', 'ad');
  if (ad.mediaType !== undefined && !(ad.mediaType in AD_MEDIA)) throw invalid('ad.mediaType must be image or video', 'ad.mediaType');
  const text = (name: keyof AdReferral) => optional(ad[name], `ad.${name}`);
  if (!ad.sourceId && !ad.ctwaClid) throw invalid('ad needs sourceId or ctwaClid', 'ad.sourceId');
  return {
    sourceUrl: text('sourceUrl'), sourceId: text('sourceId'), sourceType: text('sourceType'), title: text('headline'), body: text('body'),
    mediaType: ad.mediaType === undefined ? undefined : AD_MEDIA[ad.mediaType], thumbnailUrl: text('thumbnailUrl'), ctwaClid: text('ctwaClid'),
    showAdAttribution: true,
  };
}

/**
 * The `proto.Message` of a non-media kind and the text its record shows; throws 400 `invalid_message` on
 * bad input. `sentBy(id)` tells whether the phone sent message `id` (edits and revokes name its own).
 * Shapes follow what WhatsApp clients send: Baileys' generateWAMessageContent (reactions, edits as
 * `protocolMessage` MESSAGE_EDIT with `editedMessage`, which WhatsApp's apps wrap in a top-level
 * `editedMessage` as whatsmeow's BuildEdit does, revokes as REVOKE, contacts) and WAProto's
 * response messages (buttonsResponseMessage, templateButtonReplyMessage, listResponseMessage SINGLE_SELECT,
 * interactiveResponseMessage with a nativeFlowResponseMessage whose `paramsJson` carries the button `id`).
 */
export function buildMessage(chat: Chat, input: Exclude<PhoneMessageInput, MediaInput | VoteInput | RsvpInput>, sentBy: (id: string) => boolean): { message: proto.IMessage; text: string } {
  switch (input.kind) {
    case 'location': {
      const name = optional(input.name, 'name');
      const address = optional(input.address, 'address');
      const locationMessage = { degreesLatitude: coordinate(input.latitude, 'latitude', 90), degreesLongitude: coordinate(input.longitude, 'longitude', 180), name, address };
      return { message: { locationMessage }, text: name ?? '' };
    }
    case 'contacts': {
      if (!Array.isArray(input.contacts) || input.contacts.length === 0 || input.contacts.length > MAX_CONTACTS) {
        throw invalid(`contacts must be an array of 1 to ${MAX_CONTACTS} contacts`, 'contacts');
      }
      const cards = input.contacts.map(vcardOf);
      const text = cards.map((c) => c.displayName).join(', ');
      if (cards.length === 1) return { message: { contactMessage: cards[0] }, text };
      return { message: { contactsArrayMessage: { displayName: `${cards.length} contacts`, contacts: cards } }, text };
    }
    case 'reaction': {
      if (typeof input.emoji !== 'string' || input.emoji.length > 32) throw invalid('emoji must be a string (empty: remove the reaction)', 'emoji');
      const key = keyOf(chat, input.messageId, input.author, 'messageId');
      return { message: { reactionMessage: { key, text: input.emoji, senderTimestampMs: Date.now() } }, text: input.emoji };
    }
    case 'button': {
      const id = required(input.id, 'id', 256);
      const text = required(input.text, 'text', 1024);
      if (input.template !== undefined && typeof input.template !== 'boolean') throw invalid('template must be a boolean', 'template');
      const contextInfo = contextOf(chat, input.context, 'context');
      if (input.template) return { message: { templateButtonReplyMessage: { selectedId: id, selectedDisplayText: text, selectedIndex: 0, contextInfo } }, text };
      const type = proto.Message.ButtonsResponseMessage.Type.DISPLAY_TEXT;
      return { message: { buttonsResponseMessage: { selectedButtonId: id, selectedDisplayText: text, type, contextInfo } }, text };
    }
    case 'list': {
      const title = required(input.title, 'title', 1024);
      const listResponseMessage = {
        title, description: optional(input.description, 'description'), listType: proto.Message.ListResponseMessage.ListType.SINGLE_SELECT,
        singleSelectReply: { selectedRowId: required(input.id, 'id', 256) }, contextInfo: contextOf(chat, input.context, 'context'),
      };
      return { message: { listResponseMessage }, text: title };
    }
    case 'interactive': {
      const title = required(input.title, 'title', 1024);
      const interactiveResponseMessage = {
        body: { text: title, format: proto.Message.InteractiveResponseMessage.Body.Format.DEFAULT },
        nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: JSON.stringify({ id: required(input.id, 'id', 256) }), version: 3 },
        contextInfo: contextOf(chat, input.context, 'context'),
      };
      return { message: { interactiveResponseMessage }, text: title };
    }
    case 'reply': {
      const text = required(input.text, 'text');
      const quoted = input.quoted as (Quoted & { text?: string }) | undefined;
      const contextInfo = contextOf(chat, quoted ?? ({} as Quoted), 'quoted', optional(quoted?.text, 'quoted.text') ?? '');
      return { message: { extendedTextMessage: { text, contextInfo } }, text };
    }
    case 'mention': {
      // A text mentioning members (contextInfo.mentionedJid, Baileys generateWAMessageContent's `mentions`), each
      // named as the chat names users: in a LID-addressed group by LID, as WhatsApp's apps mention there (reported in
      // whatsapp-web.js issue #3605, "@lid in message.mentionedIds"; wppconnect wa-js PR #3040 mentions group members by LID).
      // The text shows each mention as `@<user part>` of that JID: an `@<number>` of the input becomes `@<LID user>` there.
      const mentions: unknown = input.mentions;
      if (!Array.isArray(mentions) || mentions.length === 0 || mentions.length > MAX_MENTIONS) throw invalid(`mentions must be 1 to ${MAX_MENTIONS} numbers`, 'mentions');
      const numbers = mentions.map((n, i) => String(required(n, `mentions[${i}]`, 20)).replace(/^\+/, ''));
      const mentionedJid = numbers.map((n) => userJidOf(chat, n));
      const shown = new Map(numbers.map((n, i) => [n, mentionedJid[i]!.split('@')[0]!] as const));
      const text = required(input.text, 'text').replace(/@(\d+)(?!\d)/g, (_, digits: string) => `@${shown.get(digits) ?? digits}`);
      return { message: { extendedTextMessage: { text, contextInfo: { mentionedJid } } }, text };
    }
    case 'referral': {
      const text = required(input.text, 'text');
      return { message: { extendedTextMessage: { text, contextInfo: { externalAdReply: adReply(input.ad) } } }, text };
    }
    case 'edit':
    case 'revoke': {
      const id = required(input.messageId, 'messageId', 128);
      if (!sentBy(id)) throw new SimError(404, 'message_not_found', `the phone sent no message ${id} to ${chat.jid}`, { messageId: id });
      const key = { remoteJid: chat.jid, fromMe: true, id };
      if (input.kind === 'revoke') return { message: { protocolMessage: { key, type: proto.Message.ProtocolMessage.Type.REVOKE } }, text: '' };
      const text = required(input.text, 'text');
      if (input.bare !== undefined && typeof input.bare !== 'boolean') throw invalid('bare must be a boolean', 'bare');
      const protocolMessage = { key, type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, editedMessage: { conversation: text }, timestampMs: Date.now() };
      // WhatsApp's apps wrap the edit in `editedMessage` (whatsmeow BuildEdit, send.go); Baileys sends it bare.
      return { message: input.bare ? { protocolMessage } : { editedMessage: { message: { protocolMessage } } }, text };
    }
    default:
      throw invalid(`kind must be one of ${MESSAGE_KINDS.join(', ')}`, 'kind');
  }
}

/** Message types whose stanza says `media`, as Baileys' getMediaType lists them (Socket/messages-send). */
const MEDIA_MEMBERS: Array<keyof proto.IMessage> = [
  'imageMessage', 'videoMessage', 'audioMessage', 'contactMessage', 'documentMessage', 'contactsArrayMessage', 'liveLocationMessage',
  'stickerMessage', 'listMessage', 'listResponseMessage', 'buttonsResponseMessage', 'orderMessage', 'productMessage',
  'interactiveResponseMessage', 'groupInviteMessage',
];

/**
 * The `type` attribute of a message's stanza, as a client sets it (Baileys getMessageType): `reaction`,
 * `poll`, `event`, `media` for the media-like members (view-once media included), else `text`.
 */
export function stanzaType(outer: proto.IMessage): string {
  const message = outer.viewOnceMessageV2?.message ?? outer.viewOnceMessage?.message ?? outer;
  if (message.reactionMessage || message.encReactionMessage) return 'reaction';
  if (message.pollCreationMessage || message.pollCreationMessageV2 || message.pollCreationMessageV3 || message.pollUpdateMessage) return 'poll';
  if (message.eventMessage) return 'event';
  return MEDIA_MEMBERS.some((member) => message[member]) ? 'media' : 'text';
}
