import {
  actionFlowButtons, buildVcard, interactiveMessage, pinDurationFor, pixPaymentButton, quickReplyButtons, type MediaInput,
  type MessageKey, type OutgoingContent, type OutgoingType,
} from '@parley/core';

/** Every send type the sandbox carries; a type missing here fails to compile. */
const CARRIED: Record<OutgoingType, true> = {
  text: true, image: true, audio: true, video: true, document: true, sticker: true, 'video-note': true, contact: true, contacts: true,
  location: true, 'live-location': true, link: true, reaction: true, title: true, button_reply: true, button_action: true, survey: true,
  poll: true, pix: true, event: true, pin: true, unpin: true, 'call-link': true, product: true, 'group-invite': true, 'request-phone': true,
};

/** Send types the sandbox carries: all of them. */
export const SANDBOX_SEND_TYPES = new Set(Object.keys(CARRIED) as OutgoingType[]);

/** Group invites sent as messages stay valid three days, as the ones WhatsApp apps send. */
const INVITE_TTL_SECONDS = 3 * 86_400;

/** Members every media message carries; `url` is the address the caller gave, when it came by URL. */
function mediaFields(media: MediaInput): Record<string, unknown> {
  return {
    ...(media.sourceUrl ? { url: media.sourceUrl } : {}),
    mimetype: media.mimetype,
    fileSha256: Buffer.from(media.sha256, 'hex').toString('base64'),
    fileLength: media.data.length,
  };
}

/** An animated sticker: a GIF, or a WebP whose RIFF container holds an `ANIM` chunk. */
export function isAnimatedSticker(media: MediaInput): boolean {
  if (media.mimetype === 'image/gif') return true;
  if (media.mimetype !== 'image/webp' || media.data.length < 16) return false;
  return media.data.subarray(0, 12).toString('latin1', 8, 12) === 'WEBP' && media.data.includes('ANIM', 12, 'latin1');
}

function keyOf(target: MessageKey): Record<string, unknown> {
  return { remoteJid: target.remoteJid, fromMe: target.fromMe, id: target.id, ...(target.participant ? { participant: target.participant } : {}) };
}

const optional = <K extends string>(key: K, value: string | undefined) => (value ? { [key]: value } : {});

/**
 * The proto-shaped `message` (spec 2.4) of an outgoing content, named as WhatsApp names its members,
 * as both phones store it. Media bytes never go in here: they travel beside it in the packet.
 * `nowMs` stamps what WhatsApp stamps (reaction and pin times, invite expiry).
 */
export function outgoingToProto(content: OutgoingContent, nowMs: number): Record<string, unknown> {
  switch (content.type) {
    case 'text':
      return { extendedTextMessage: { text: content.text } };
    case 'image':
      return { imageMessage: { ...mediaFields(content.media), ...optional('caption', content.caption) } };
    case 'audio':
      return { audioMessage: { ...mediaFields(content.media), ptt: content.ptt === true } };
    case 'video':
      return { videoMessage: { ...mediaFields(content.media), ...optional('caption', content.caption) } };
    case 'document':
      return {
        documentMessage: {
          ...mediaFields(content.media), mimetype: content.mimetype, fileName: content.fileName, ...optional('caption', content.caption),
        },
      };
    case 'sticker':
      return { stickerMessage: { ...mediaFields(content.media), isAnimated: isAnimatedSticker(content.media) } };
    case 'video-note':
      return { ptvMessage: mediaFields(content.media) };
    case 'contact':
      return { contactMessage: { displayName: content.contact.fullName, vcard: buildVcard(content.contact) } };
    case 'contacts':
      return {
        contactsArrayMessage: {
          displayName: content.displayName,
          contacts: content.contacts.map((c) => ({ displayName: c.fullName, vcard: buildVcard(c) })),
        },
      };
    case 'location':
      return {
        locationMessage: {
          degreesLatitude: content.latitude, degreesLongitude: content.longitude, ...optional('name', content.name), ...optional('address', content.address),
        },
      };
    case 'live-location':
      return {
        liveLocationMessage: {
          degreesLatitude: content.latitude, degreesLongitude: content.longitude, ...optional('caption', content.caption), sequenceNumber: 1,
        },
      };
    case 'link':
      return {
        extendedTextMessage: {
          text: content.text.includes(content.sourceUrl) ? content.text : `${content.text}\n${content.sourceUrl}`,
          matchedText: content.sourceUrl,
          canonicalUrl: content.sourceUrl,
          title: content.title,
          ...optional('description', content.description),
          ...optional('thumbnailUrl', content.thumbnailUrl),
          ...(content.thumbnail ? { jpegThumbnail: content.thumbnail.data.toString('base64') } : {}),
        },
      };
    case 'reaction':
      return { reactionMessage: { key: keyOf(content.target), text: content.emoji, senderTimestampMs: String(nowMs) } };
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
      return { pollCreationMessage: { name: content.name, options: content.options.map((optionName) => ({ optionName })), selectableOptionsCount: 1 } };
    case 'poll':
      return {
        pollCreationMessage: {
          name: content.name, options: content.values.map((optionName) => ({ optionName })), selectableOptionsCount: content.selectableCount,
        },
      };
    case 'event':
      return {
        eventMessage: {
          name: content.name,
          ...optional('description', content.description),
          startTime: content.startTime,
          ...(content.locationName || content.locationAddress
            ? { location: { ...optional('name', content.locationName), ...optional('address', content.locationAddress) } }
            : {}),
          isCanceled: false,
        },
      };
    case 'pin':
      return {
        pinInChatMessage: {
          key: keyOf(content.target), type: 1, senderTimestampMs: String(nowMs), messageAddOnDurationInSecs: pinDurationFor(content.duration),
        },
      };
    case 'unpin':
      return { pinInChatMessage: { key: keyOf(content.target), type: 2, senderTimestampMs: String(nowMs) } };
    case 'call-link':
      return { extendedTextMessage: { text: content.caption ? `${content.caption}\n${content.link}` : content.link, matchedText: content.link } };
    case 'product':
      return { productMessage: { product: { productId: content.productId }, businessOwnerJid: content.businessOwnerJid, catalogId: content.catalogId } };
    case 'group-invite':
      return {
        groupInviteMessage: {
          groupJid: content.groupJid, inviteCode: content.inviteCode, inviteExpiration: Math.floor(nowMs / 1000) + INVITE_TTL_SECONDS,
          groupName: content.groupName, ...optional('caption', content.caption),
        },
      };
    case 'request-phone':
      return { requestPhoneNumberMessage: {} };
  }
}
