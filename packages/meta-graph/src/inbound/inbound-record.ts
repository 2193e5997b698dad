import type { InboundContent, InboundMessage, MessageContent } from '@parley/core';

type Context = InboundMessage['context'];

/** The inbound contents Meta's messaging webhooks can carry (no contact cards, list replies, poll votes or event responses). */
export type MetaInboundContent = Exclude<InboundContent, { type: 'contacts' | 'list_reply' | 'poll_vote' | 'event_response' }>;

/** Quote or story context, in the `contextInfo` member every record type shares. */
function contextInfo(context: Context): Record<string, unknown> | undefined {
  if (!context) return undefined;
  return {
    ...(context.id ? { stanzaId: context.id } : {}),
    ...(context.from ? { participant: context.from } : {}),
    ...(context.story ? { story: { ...context.story } } : {}),
  };
}

/**
 * The proto-like `message` member of a received message's record (spec 2.4), named as the main
 * channel names them, so records of every channel read the same. The URL is Meta's CDN link.
 */
export function inboundRecordContent(content: MetaInboundContent, chatJid: string, context?: Context): MessageContent {
  const info = contextInfo(context);
  const withInfo = <T extends Record<string, unknown>>(member: T): T => (info ? { ...member, contextInfo: info } : member);
  switch (content.type) {
    case 'text':
      return { extendedTextMessage: withInfo({ text: content.body }) };
    case 'image':
      return { imageMessage: withInfo({ url: content.media.link, mimetype: content.media.mimeType, ...caption(content.media.caption) }) };
    case 'video':
      return { videoMessage: withInfo({ url: content.media.link, mimetype: content.media.mimeType, ...caption(content.media.caption) }) };
    case 'audio':
      return { audioMessage: withInfo({ url: content.media.link, mimetype: content.media.mimeType, ptt: content.voice }) };
    case 'document':
      return {
        documentMessage: withInfo({
          url: content.media.link, mimetype: content.media.mimeType, fileName: content.filename, ...caption(content.media.caption),
        }),
      };
    case 'sticker':
      return { stickerMessage: withInfo({ url: content.media.link, mimetype: content.media.mimeType, isAnimated: content.animated }) };
    case 'location':
      return {
        locationMessage: withInfo({
          degreesLatitude: content.latitude, degreesLongitude: content.longitude,
          ...(content.name ? { name: content.name } : {}), ...(content.address ? { address: content.address } : {}),
        }),
      };
    case 'reaction':
      return { reactionMessage: { key: { remoteJid: chatJid, id: content.messageId }, text: content.emoji ?? '' } };
    case 'button_reply':
      return { buttonsResponseMessage: withInfo({ selectedButtonId: content.id, selectedDisplayText: content.title }) };
    case 'button':
      return { buttonsResponseMessage: withInfo({ selectedButtonId: content.payload, selectedDisplayText: content.text }) };
    case 'unsupported':
      return { unsupportedMessage: { type: content.typeName } };
  }
}

function caption(value: string | undefined): { caption?: string } {
  return value ? { caption: value } : {};
}
