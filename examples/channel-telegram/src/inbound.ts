import type { ChannelEventPayload, InboundContent, InboundMessage, MessageContent } from '@parley/core';
import { messageIdOf, type TgMessage, type TgUpdate } from './telegram-types.js';

/** The normalized content of a Telegram message; kinds this example does not map arrive as `unsupported`. */
function contentOf(message: TgMessage, id: string): InboundContent {
  const caption = message.caption ? { caption: message.caption } : {};
  if (message.text !== undefined) return { type: 'text', body: message.text };
  if (message.photo?.length) {
    // Telegram sends every size it made; the last is the largest. Photos are re-encoded as JPEG.
    const largest = message.photo[message.photo.length - 1]!;
    return { type: 'image', media: { id: largest.file_id, mimeType: 'image/jpeg', sha256: '', ...caption } };
  }
  if (message.document) {
    const file = message.document;
    return { type: 'document', filename: file.file_name ?? id, media: { id: file.file_id, mimeType: file.mime_type ?? 'application/octet-stream', sha256: '', ...caption } };
  }
  if (message.video) return { type: 'video', media: { id: message.video.file_id, mimeType: message.video.mime_type ?? 'video/mp4', sha256: '', ...caption } };
  if (message.voice) return { type: 'audio', voice: true, media: { id: message.voice.file_id, mimeType: message.voice.mime_type ?? 'audio/ogg', sha256: '' } };
  if (message.audio) return { type: 'audio', voice: false, media: { id: message.audio.file_id, mimeType: message.audio.mime_type ?? 'audio/mpeg', sha256: '' } };
  if (message.location) return { type: 'location', latitude: message.location.latitude, longitude: message.location.longitude };
  return { type: 'unsupported', typeName: Object.keys(message).find((k) => !['message_id', 'from', 'chat', 'date'].includes(k)) ?? 'unknown' };
}

/** The record member of a content, named as the main channel names them (spec 2.4); media keep Telegram's `file_id`. */
function recordContent(content: InboundContent): MessageContent {
  switch (content.type) {
    case 'text':
      return { extendedTextMessage: { text: content.body } };
    case 'image':
      return { imageMessage: { fileId: content.media.id, mimetype: content.media.mimeType, ...(content.media.caption ? { caption: content.media.caption } : {}) } };
    case 'video':
      return { videoMessage: { fileId: content.media.id, mimetype: content.media.mimeType, ...(content.media.caption ? { caption: content.media.caption } : {}) } };
    case 'audio':
      return { audioMessage: { fileId: content.media.id, mimetype: content.media.mimeType, ptt: content.voice } };
    case 'document':
      return {
        documentMessage: {
          fileId: content.media.id, mimetype: content.media.mimeType, fileName: content.filename, ...(content.media.caption ? { caption: content.media.caption } : {}),
        },
      };
    case 'location':
      return { locationMessage: { degreesLatitude: content.latitude, degreesLongitude: content.longitude } };
    default:
      return { unsupportedMessage: { type: content.type === 'unsupported' ? content.typeName : content.type } };
  }
}

/**
 * The channel events of one update: a `message` for `message` (and for `edited_message`, marked as
 * an edit of the original). Updates of other kinds (channel posts, callback queries) carry none here.
 */
export function eventsOf(update: TgUpdate): ChannelEventPayload[] {
  const message = update.message ?? update.edited_message;
  if (!message || !message.from) return [];
  const chatJid = String(message.chat.id);
  const id = messageIdOf(chatJid, message.message_id);
  const content = contentOf(message, id);
  const group = message.chat.type === 'group' || message.chat.type === 'supergroup';
  const pushName = [message.from.first_name, message.from.last_name].filter(Boolean).join(' ');
  // An edit is a new event about the same message: its id must not collide with the original's.
  const eventId = update.edited_message ? `${id}_edit_${update.update_id}` : id;
  const inbound: InboundMessage = {
    id: eventId,
    chatJid,
    from: String(message.from.id),
    fromUserId: String(message.from.id),
    fromMe: false,
    timestamp: message.date,
    chatType: group ? 'group' : 'individual',
    ...(group ? { groupId: chatJid } : {}),
    pushName,
    ...(message.from.username ? { username: message.from.username } : {}),
    content,
    ...(message.reply_to_message ? { context: { id: messageIdOf(chatJid, message.reply_to_message.message_id) } } : {}),
    ...(update.edited_message ? { edit: { originalMessageId: id } } : {}),
    record: {
      key: { remoteJid: chatJid, fromMe: false, id: eventId },
      message: recordContent(content),
      messageTimestamp: String(message.date),
      status: 'DELIVERY_ACK',
      pushName,
    },
  };
  return [{ type: 'message', message: inbound }];
}
