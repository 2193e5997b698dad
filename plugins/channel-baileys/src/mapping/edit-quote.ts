import type { MessageRecord } from '@parley/core';
import { getContentType, normalizeMessageContent, proto } from '@whiskeysockets/baileys';
import { messageProto } from './record.js';

type Member = { contextInfo?: proto.IContextInfo | null };

/** The context info of a message's content member (`extendedTextMessage`, `imageMessage`, …), if it has one. */
export function contextInfoOf(content: proto.IMessage | null | undefined): proto.IContextInfo | undefined {
  const type = getContentType(content ?? undefined);
  const member = type ? (content![type] as Member | null | undefined) : undefined;
  return typeof member === 'object' && member ? member.contextInfo ?? undefined : undefined;
}

/**
 * The edited content of a reply, still quoting what the reply quoted. An edit carries the new content
 * only: WhatsApp's apps send `protocolMessage` MESSAGE_EDIT whose `editedMessage` is the new text as a
 * bare `conversation` (whatsmeow send.go BuildEdit takes the new content as given; its callers pass
 * `Conversation`), and Baileys builds the same from `{ text, edit: key }` (Utils/messages.js
 * generateWAMessageContent: `editedMessage` is the text content alone, no `contextInfo`). The phones
 * keep showing the quote above the edited text, so the stored message must too: when the edit brings no
 * quote of its own and the original record (`original`) quoted a message, that quote (`stanzaId`,
 * `participant`, `remoteJid`, `quotedMessage`) is put back — a `conversation` becomes the
 * `extendedTextMessage` that can carry it. Anything else the original's context held (mentions,
 * forwarding, ads) belongs to the old content and is not carried over.
 */
export function keepQuote(edited: proto.IMessage, original: MessageRecord | undefined): proto.IMessage {
  if (contextInfoOf(edited)?.stanzaId || !original) return edited;
  const before = contextInfoOf(normalizeMessageContent(messageProto(original.message)));
  if (!before?.stanzaId) return edited;
  const quote: proto.IContextInfo = {
    stanzaId: before.stanzaId,
    ...(before.participant ? { participant: before.participant } : {}),
    ...(before.remoteJid ? { remoteJid: before.remoteJid } : {}),
    ...(before.quotedMessage ? { quotedMessage: before.quotedMessage } : {}),
  };
  const type = getContentType(edited);
  if (!type) return edited;
  if (type === 'conversation') return { extendedTextMessage: { text: edited.conversation ?? '', contextInfo: quote } };
  const member = edited[type] as Member | null | undefined;
  if (typeof member !== 'object' || !member) return edited;
  return { ...edited, [type]: { ...member, contextInfo: { ...(member.contextInfo ?? {}), ...quote } } };
}
