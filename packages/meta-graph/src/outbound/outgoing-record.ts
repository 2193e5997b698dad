import type { ChannelName, MessageContent, MessageRecord } from '@parley/core';
import { composeText, type MetaOutgoingContent } from './outgoing-message.js';

function mediaMember(content: Extract<MetaOutgoingContent, { type: 'image' | 'audio' | 'video' | 'document' }>): Record<string, unknown> {
  const base = { ...(content.media.sourceUrl ? { url: content.media.sourceUrl } : {}), mimetype: content.media.mimetype };
  switch (content.type) {
    case 'image':
    case 'video':
      return { ...base, ...(content.caption ? { caption: content.caption } : {}) };
    case 'audio':
      return { ...base, ptt: content.ptt === true };
    case 'document':
      return { ...base, mimetype: content.mimetype, fileName: content.fileName, ...(content.caption ? { caption: content.caption } : {}) };
  }
}

/** The proto-like `message` member of a sent message (spec 2.4), as the main channel names them; also the driver's `pendingRecord`. */
export function recordContent(content: MetaOutgoingContent): MessageContent {
  switch (content.type) {
    case 'text':
      return { extendedTextMessage: { text: content.text } };
    case 'title':
      return { extendedTextMessage: { text: composeText(content.title, content.text, content.footer) } };
    case 'image':
      return { imageMessage: mediaMember(content) };
    case 'audio':
      return { audioMessage: mediaMember(content) };
    case 'video':
      return { videoMessage: mediaMember(content) };
    case 'document':
      return { documentMessage: mediaMember(content) };
    case 'button_reply':
      return {
        buttonsMessage: {
          ...(content.header?.title ? { headerText: content.header.title } : {}),
          contentText: content.text,
          ...(content.footer ? { footerText: content.footer } : {}),
          buttons: content.buttons.map((button) => ({ buttonId: button.id, buttonText: { displayText: button.text } })),
        },
      };
    case 'button_action':
      return {
        interactiveMessage: {
          ...(content.header?.title ? { header: { title: content.header.title } } : {}),
          body: { text: content.text },
          ...(content.footer ? { footer: { text: content.footer } } : {}),
          buttons: content.buttons.map((button) => ({ ...button })),
        },
      };
    case 'reaction':
      return { reactionMessage: { key: { ...content.target }, text: content.emoji } };
  }
}

/** The record a send answers: `PENDING`, keyed by the id Meta gave the message. */
export function outgoingRecord(
  channel: ChannelName,
  to: string,
  id: string,
  content: MetaOutgoingContent,
  timestamp: number,
  quotedId?: string,
): MessageRecord {
  const message = recordContent(content);
  if (quotedId && content.type !== 'reaction') {
    const [member, value] = Object.entries(message)[0]!;
    message[member] = { ...(value as Record<string, unknown>), contextInfo: { stanzaId: quotedId } };
  }
  return {
    key: { remoteJid: to, fromMe: true, id },
    message,
    messageTimestamp: String(timestamp),
    status: 'PENDING',
    provider: channel,
  };
}
