/**
 * The one mapping between Parley's normalized content and WhatsApp's proto messages, shared by the
 * Baileys channel (real WhatsApp) and the sandbox channel (a simulated WhatsApp network): what a
 * send becomes on the wire, and what a received message means.
 */
export {
  callLinkText, contactCards, eventLocation, inviteExpiration, linkText, locationFields, messageKey, outgoingMessage, pendingMessage, SEND_TYPES,
} from './outgoing-message.js';
export { inboundContent, inboundContentOf } from './inbound-content.js';
export { typedMember } from './typed-member.js';
export { LABEL_COLORS, MAX_LABELS, newLabel } from './labels.js';
export { baileysLinkPreview, inboundPreview, mentionContext, mentionsOf, mergeContextInfo, previewMembers } from './rich-text.js';
export { toWebpSticker, webpStickerMedia, type WebpSticker } from './sticker.js';
export {
  GROUP_SUFFIX, groupJid, isGroupJid, jidKind, jidUser, LID_SUFFIX, RECIPIENT_PATTERN, RECIPIENT_RULE, recipientPatternOr, STATUS_BROADCAST, toJid, USER_SUFFIX,
  WHATSAPP_ADDRESSING,
} from './jid.js';
export {
  actionFlowButtons, buildVcard, interactiveMessage, isAnimatedSticker, pinDurationFor, PIN_DURATIONS, pixPaymentButton, quickReplyButtons,
  type NativeFlowButton,
} from './whatsapp-content.js';
