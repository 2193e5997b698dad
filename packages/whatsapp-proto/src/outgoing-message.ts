import { type MediaInput, type MessageKey, type OutgoingContent, type OutgoingType, type ContactCard } from '@parley/core';
import { actionFlowButtons, buildVcard, interactiveMessage, isAnimatedSticker, pixPaymentButton, quickReplyButtons } from './whatsapp-content.js';
import { messageContextInfo, withContextInfo } from './message-context.js';
import { mentionContext, mergeContextInfo, previewMembers } from './rich-text.js';

/** Every send type WhatsApp carries; a type missing here fails to compile. */
export const SEND_TYPES: Record<OutgoingType, true> = {
  text: true, image: true, audio: true, video: true, document: true, sticker: true, 'video-note': true, contact: true, contacts: true,
  location: true, 'live-location': true, link: true, reaction: true, title: true, button_reply: true, button_action: true, survey: true,
  poll: true, pix: true, event: true, pin: true, unpin: true, 'call-link': true, product: true, 'group-invite': true, 'request-phone': true,
};

/** Group invites sent as messages stay valid three days, as the ones WhatsApp apps send. */
const INVITE_TTL_SECONDS = 3 * 86_400;

/** Unix seconds when a group invite sent at `nowMs` expires. */
export function inviteExpiration(nowMs: number): number {
  return Math.floor(nowMs / 1000) + INVITE_TTL_SECONDS;
}

/** The address the caller gave for media that came by URL (Baileys puts its upload address here). */
function url(media: MediaInput): { url?: string } {
  return media.sourceUrl ? { url: media.sourceUrl } : {};
}

/** Digest and size of media as proto JSON writes them: bytes in base64, the 64-bit length as text. */
function digest(media: MediaInput): { fileSha256: string; fileLength: string } {
  return { fileSha256: Buffer.from(media.sha256, 'hex').toString('base64'), fileLength: String(media.data.length) };
}

/** A message key as WhatsApp's proto carries it (a reaction's or pin's target). */
export function messageKey(target: MessageKey): { remoteJid: string; fromMe: boolean; id: string; participant?: string } {
  return { remoteJid: target.remoteJid, fromMe: target.fromMe, id: target.id, ...(target.participant ? { participant: target.participant } : {}) };
}

const optional = <K extends string>(key: K, value: string | undefined) => (value ? { [key]: value } : {});

/** The text of a `link` send: the caller's text, with the link appended unless the text names it. */
export function linkText(content: { text: string; sourceUrl: string }): string {
  return content.text.includes(content.sourceUrl) ? content.text : `${content.text}\n${content.sourceUrl}`;
}

/** The text of a `call-link` send: the caption, then the link. */
export function callLinkText(content: { caption?: string | undefined; link: string }): string {
  return content.caption ? `${content.caption}\n${content.link}` : content.link;
}

/** The place of an event, when it names one. */
export function eventLocation(content: { locationName?: string | undefined; locationAddress?: string | undefined }): { location?: { name?: string; address?: string } } {
  return content.locationName || content.locationAddress
    ? { location: { ...optional('name', content.locationName), ...optional('address', content.locationAddress) } }
    : {};
}

/** Contact cards as WhatsApp's `contactsArrayMessage` carries them: a display name and a vCard each. */
export function contactCards(contacts: ContactCard[]): { displayName: string; vcard: string }[] {
  return contacts.map((c) => ({ displayName: c.fullName, vcard: buildVcard(c) }));
}

/** The coordinates and labels of a `location` send. */
export function locationFields(content: { latitude: number; longitude: number; name?: string | undefined; address?: string | undefined }) {
  return { degreesLatitude: content.latitude, degreesLongitude: content.longitude, ...optional('name', content.name), ...optional('address', content.address) };
}

/**
 * The `message` (spec 2.4) of an outgoing content exactly as Baileys' `generateWAMessageContent`
 * builds it for the same send (the sandbox channel sends this; the Baileys channel relays it for the
 * types Baileys has no builder for): the JSON form of WhatsApp's proto (`proto.Message.toJSON()`), members in proto field
 * order, 64-bit numbers as text, enums by name, bytes in base64, with the `messageContextInfo`
 * Baileys adds (a fresh message secret; see `messageContextInfo`). Only media differ, as nothing is uploaded here: no
 * `mediaKey`/`fileEncSha256`/`directPath`/`mediaKeyTimestamp`, and `url` is the caller's address.
 * Media bytes never go in here: they travel beside it in the packet. `nowMs` stamps what WhatsApp
 * stamps (reaction and pin times, invite expiry).
 */
export function outgoingMessage(content: OutgoingContent, nowMs: number): Record<string, unknown> {
  return withContextInfo(pendingMessage(content, nowMs), messageContextInfo(content));
}

/**
 * The `message` of the record of a send the channel has not taken yet (queued, or failed for good):
 * {@link outgoingMessage} without the per-send member the channel adds when it sends
 * (`messageContextInfo`: the message secret, not drawn here). Both WhatsApp drivers' `pendingRecord`.
 */
export function pendingMessage(content: OutgoingContent, nowMs: number): Record<string, unknown> {
  const members = contentMembers(content, nowMs);
  const mentions = mentionContext(content);
  if (mentions) mergeContextInfo(members, mentions);
  return members;
}

function contentMembers(content: OutgoingContent, nowMs: number): Record<string, unknown> {
  switch (content.type) {
    case 'text':
      return { extendedTextMessage: { text: content.text, ...(content.preview ? previewMembers(content.preview) : {}) } };
    case 'image': {
      const m = content.media;
      return { imageMessage: { ...url(m), mimetype: m.mimetype, ...optional('caption', content.caption), ...digest(m) } };
    }
    case 'audio': {
      const m = content.media;
      return { audioMessage: { ...url(m), mimetype: m.mimetype, ...digest(m), ptt: content.ptt === true } };
    }
    case 'video': {
      const m = content.media;
      return { videoMessage: { ...url(m), mimetype: m.mimetype, ...digest(m), ...optional('caption', content.caption) } };
    }
    case 'document': {
      const m = content.media;
      return {
        documentMessage: { ...url(m), mimetype: content.mimetype, ...digest(m), fileName: content.fileName, ...optional('caption', content.caption) },
      };
    }
    case 'sticker': {
      const { fileSha256, fileLength } = digest(content.media);
      return {
        stickerMessage: { ...url(content.media), fileSha256, mimetype: content.media.mimetype, fileLength, isAnimated: isAnimatedSticker(content.media) },
      };
    }
    case 'video-note':
      return { ptvMessage: { ...url(content.media), mimetype: content.media.mimetype, ...digest(content.media) } };
    case 'contact':
      return { contactMessage: { displayName: content.contact.fullName, vcard: buildVcard(content.contact) } };
    case 'contacts':
      return {
        contactsArrayMessage: {
          displayName: content.displayName,
          contacts: contactCards(content.contacts),
        },
      };
    case 'location':
      return { locationMessage: locationFields(content) };
    case 'live-location':
      return { liveLocationMessage: { degreesLatitude: content.latitude, degreesLongitude: content.longitude, ...optional('caption', content.caption) } };
    case 'link':
      // The preview names what it shows; WhatsApp keeps no canonical URL or thumbnail address beside it.
      return {
        extendedTextMessage: {
          text: linkText(content),
          ...previewMembers({ url: content.sourceUrl, title: content.title, description: content.description, thumbnail: content.thumbnail }),
        },
      };
    case 'reaction':
      return { reactionMessage: { key: messageKey(content.target), text: content.emoji, senderTimestampMs: String(nowMs) } };
    case 'title':
      return interactiveMessage({ title: content.title, text: content.text, footer: content.footer, buttons: [] });
    case 'button_reply':
      return interactiveMessage({ title: content.header?.title, text: content.text, footer: content.footer, buttons: quickReplyButtons(content.buttons) });
    case 'button_action':
      return interactiveMessage({ title: content.header?.title, text: content.text, footer: content.footer, buttons: actionFlowButtons(content.buttons) });
    case 'pix':
      return interactiveMessage({ title: content.title, text: content.text, buttons: [pixPaymentButton(content)] });
    case 'survey':
      // A survey is a single-answer poll: each person picks one option.
      return pollCreation(content.name, content.options, 1);
    case 'poll':
      return pollCreation(content.name, content.values, content.selectableCount);
    case 'event':
      return {
        eventMessage: {
          isCanceled: false,
          name: content.name,
          ...optional('description', content.description),
          ...eventLocation(content),
          startTime: String(content.startTime),
          isScheduleCall: false,
        },
      };
    case 'pin':
      // How long the pin lasts travels in `messageContextInfo` (messageAddOnDurationInSecs).
      return { pinInChatMessage: { key: messageKey(content.target), type: 'PIN_FOR_ALL', senderTimestampMs: String(nowMs) } };
    case 'unpin':
      return { pinInChatMessage: { key: messageKey(content.target), type: 'UNPIN_FOR_ALL', senderTimestampMs: String(nowMs) } };
    case 'call-link':
      return { extendedTextMessage: { text: callLinkText(content) } };
    case 'product':
      // The card names the product and its owner; the recipient's app loads the rest from that
      // business's catalog (WhatsApp's card has no member for a catalog id).
      return { productMessage: { product: { productId: content.productId }, businessOwnerJid: content.businessOwnerJid } };
    case 'group-invite':
      return {
        groupInviteMessage: {
          groupJid: content.groupJid, inviteCode: content.inviteCode, inviteExpiration: String(inviteExpiration(nowMs)),
          groupName: content.groupName, caption: content.caption ?? '',
        },
      };
    case 'request-phone':
      return { requestPhoneNumberMessage: {} };
  }
}

/**
 * A poll as WhatsApp versions it: single-answer polls are `pollCreationMessageV3`, multiple-answer
 * ones `pollCreationMessage`.
 */
function pollCreation(name: string, options: string[], selectableOptionsCount: number): Record<string, unknown> {
  const poll = { name, options: options.map((optionName) => ({ optionName })), selectableOptionsCount };
  return selectableOptionsCount === 1 ? { pollCreationMessageV3: poll } : { pollCreationMessage: poll };
}
