import type { OperationResponse } from '@parley/client';

/** A stored message record (spec 2.4) as chat message lists answer it. */
export type MessageRecord = OperationResponse<'listChatMessages'>['data'][number];

/** Members of the WhatsApp message object that carry media, with their label. */
const MEDIA = [
  ['imageMessage', 'image'], ['videoMessage', 'video'], ['audioMessage', 'audio'], ['documentMessage', 'document'],
  ['stickerMessage', 'sticker'], ['ptvMessage', 'video note'],
] as const;

/** A one-line rendering of a message: its text, or its kind and caption. */
export function messageText(record: Pick<MessageRecord, 'message'>): string {
  const m = record.message as Record<string, Record<string, unknown> | string | undefined>;
  if (typeof m.conversation === 'string') return m.conversation;
  const extended = m.extendedTextMessage;
  if (extended && typeof extended === 'object' && typeof extended.text === 'string') return extended.text;
  for (const [member, label] of MEDIA) {
    const media = m[member];
    if (media && typeof media === 'object') {
      const caption = typeof media.caption === 'string' ? media.caption : typeof media.fileName === 'string' ? media.fileName : '';
      return `[${label}]${caption ? ` ${caption}` : ''}`;
    }
  }
  const kind = Object.keys(m).find((k) => k !== 'messageContextInfo');
  return kind ? `[${kind.replace(/Message$/, '')}]` : '[message]';
}

/** Time of a record (`messageTimestamp`, Unix seconds as text) for display. */
export function messageTime(record: Pick<MessageRecord, 'messageTimestamp'>): string {
  const seconds = Number(record.messageTimestamp);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toLocaleTimeString() : '';
}
