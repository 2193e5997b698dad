import type { ChannelEventPayload, InboundMessage, MessageRecord } from '@parley/core';
import type { BaileysEventMap } from '@whiskeysockets/baileys';
import type { InboundEnv } from './inbound-env.js';
import { mapInboundMessage } from './inbound-message.js';
import { fullChat, fullContact } from './resources.js';

type HistoryPayload = Extract<ChannelEventPayload, { type: 'history' }>;

/** Most records (messages, chats and contacts together) one `history` event carries. */
export const HISTORY_EVENT_RECORDS = 500;
/** Most bytes of records (as JSON) one `history` event carries; a larger record goes alone. */
export const HISTORY_EVENT_BYTES = 1024 * 1024;
/** Inline previews of media and links (JPEG or PNG bytes, base64 in a record): the media themselves stay downloadable. */
const THUMBNAILS = new Set(['jpegThumbnail', 'pngThumbnail']);

/** What one history sync chunk of Baileys becomes. */
export interface HistoryBatch {
  /** Its records, in `history` events of at most {@link HISTORY_EVENT_RECORDS} records and {@link HISTORY_EVENT_BYTES}. */
  events: HistoryPayload[];
  /**
   * Messages of the chunk sent after this device was linked and not stored yet: live messages that
   * Baileys' event buffer folded into a history set flushed in the same window (Utils/event-buffer.js
   * files an upsert under `historySets` when its key is there), which must still be `message` events.
   */
  live: InboundMessage[];
}

/**
 * Maps a `messaging-history.set`: its messages' records without inline thumbnails, its chats and
 * contacts, split into bounded events; `isLatest` is set on the last one only. Looks up in storage
 * whether each message newer than the link was already handled, before anything is emitted.
 */
export async function historyBatch(set: BaileysEventMap['messaging-history.set'], env: InboundEnv): Promise<HistoryBatch> {
  const linkedAt = env.linkedAt();
  const messages: MessageRecord[] = [];
  const live: InboundMessage[] = [];
  for (const msg of set.messages) {
    const mapped = await mapInboundMessage(msg, env);
    if (mapped.kind !== 'message' || mapped.message.edit) continue;
    const { record } = mapped.message;
    messages.push({ ...record, message: withoutThumbnails(record.message) as MessageRecord['message'] });
    if (linkedAt !== undefined && mapped.message.timestamp >= linkedAt && (await env.storedRecord(mapped.message.id)) === undefined) {
      live.push(mapped.message);
    }
  }
  const chats = set.chats.map(fullChat).filter((c) => c !== undefined);
  const contacts = set.contacts.map(fullContact).filter((c) => c !== undefined);
  const parts = split([
    ...messages.map((value) => ({ list: 'messages' as const, value })),
    ...chats.map((value) => ({ list: 'chats' as const, value })),
    ...contacts.map((value) => ({ list: 'contacts' as const, value })),
  ]);
  const progress = typeof set.progress === 'number' ? { progress: set.progress } : {};
  const events = parts.map((part, index): HistoryPayload => ({
    type: 'history', ...part, isLatest: set.isLatest === true && index === parts.length - 1, ...progress,
  }));
  return { events, live };
}

type Item =
  | { list: 'messages'; value: MessageRecord }
  | { list: 'chats'; value: HistoryPayload['chats'][number] }
  | { list: 'contacts'; value: HistoryPayload['contacts'][number] };

type Part = Pick<HistoryPayload, 'messages' | 'chats' | 'contacts'>;

/** Cuts the items into parts within the bounds, in order; an empty chunk still makes one (empty) part. */
function split(items: Item[]): Part[] {
  const parts: Part[] = [];
  let part: Part = { messages: [], chats: [], contacts: [] };
  let count = 0;
  let bytes = 0;
  for (const item of items) {
    const size = JSON.stringify(item.value).length;
    if (count > 0 && (count + 1 > HISTORY_EVENT_RECORDS || bytes + size > HISTORY_EVENT_BYTES)) {
      parts.push(part);
      part = { messages: [], chats: [], contacts: [] };
      count = 0;
      bytes = 0;
    }
    (part[item.list] as unknown[]).push(item.value);
    count += 1;
    bytes += size;
  }
  parts.push(part);
  return parts;
}

/** A copy of a record's message without inline thumbnails, at any depth (quoted messages carry theirs). */
function withoutThumbnails(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutThumbnails);
  if (!value || typeof value !== 'object' || Buffer.isBuffer(value) || value instanceof Uint8Array) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (!THUMBNAILS.has(key)) out[key] = withoutThumbnails(member);
  }
  return out;
}
