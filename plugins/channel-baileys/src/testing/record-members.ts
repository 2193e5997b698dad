import type { OutgoingType } from '@parley/core';

/**
 * The member of a sent record's `message` each send type produces on the WhatsApp wire channel, as
 * Baileys' `generateWAMessage` names it. The sandbox stores the same records (its proto-parity
 * test), so both channels declare this map to the channel conformance suite of `@parley/testkit`.
 */
export const WHATSAPP_RECORD_MEMBERS: Record<OutgoingType, string> = {
  text: 'extendedTextMessage', image: 'imageMessage', audio: 'audioMessage', video: 'videoMessage', document: 'documentMessage',
  sticker: 'stickerMessage', 'video-note': 'ptvMessage', contact: 'contactMessage', contacts: 'contactsArrayMessage',
  location: 'locationMessage', 'live-location': 'liveLocationMessage', link: 'extendedTextMessage', reaction: 'reactionMessage',
  title: 'interactiveMessage', button_reply: 'interactiveMessage', button_action: 'interactiveMessage', survey: 'pollCreationMessageV3',
  poll: 'pollCreationMessageV3', pix: 'interactiveMessage', event: 'eventMessage', pin: 'pinInChatMessage', unpin: 'pinInChatMessage',
  'call-link': 'extendedTextMessage', product: 'productMessage', 'group-invite': 'groupInviteMessage', 'request-phone': 'requestPhoneNumberMessage',
};
