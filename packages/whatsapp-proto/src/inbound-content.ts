import type { InboundContent, InboundMedia } from '@parley/core';
import type { proto } from '@whiskeysockets/baileys';
import { inboundPreview } from './rich-text.js';
import { typedMember } from './typed-member.js';

type Bytes = Uint8Array | string | null | undefined;

/** Hex SHA-256 from a proto bytes field (raw or base64), empty when absent. */
export function hexDigest(bytes: Bytes): string {
  if (!bytes || bytes.length === 0) return '';
  return (typeof bytes === 'string' ? Buffer.from(bytes, 'base64') : Buffer.from(bytes)).toString('hex');
}

function media(id: string, m: { mimetype?: string | null; fileSha256?: Bytes; caption?: string | null }, fallbackMime: string): InboundMedia {
  return { id, mimeType: m.mimetype || fallbackMime, sha256: hexDigest(m.fileSha256), ...(m.caption ? { caption: m.caption } : {}) };
}

function parseParams(json: string | null | undefined): Record<string, unknown> {
  if (!json) return {};
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** {@link inboundContent} of a message in proto JSON form (spec 2.4 `message`), typed by its first content member. */
export function inboundContentOf(message: Record<string, unknown>, messageId: string): InboundContent {
  const [type] = typedMember(message);
  return inboundContent(message as proto.IMessage, type as keyof proto.IMessage, messageId);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Maps one message content (already unwrapped from ephemeral/view-once wrappers) of protocol type
 * `type` to the normalized inbound content: a decoded proto message (Baileys) or its JSON form
 * (bytes as base64, as the sandbox carries it). `messageId` becomes the media id (media is served by
 * message id). Types without a normalized form become `unsupported` naming the protocol type.
 */
export function inboundContent(content: proto.IMessage, type: keyof proto.IMessage, messageId: string): InboundContent {
  switch (type) {
    case 'conversation':
      return { type: 'text', body: content.conversation ?? '' };
    case 'extendedTextMessage': {
      const preview = inboundPreview(content.extendedTextMessage as Record<string, unknown> | undefined);
      return { type: 'text', body: content.extendedTextMessage?.text ?? '', ...(preview ? { preview } : {}) };
    }
    case 'imageMessage':
      return { type: 'image', media: media(messageId, content.imageMessage!, 'image/jpeg') };
    case 'videoMessage':
      return { type: 'video', media: media(messageId, content.videoMessage!, 'video/mp4') };
    case 'ptvMessage':
      return { type: 'video', media: media(messageId, content.ptvMessage!, 'video/mp4') };
    case 'audioMessage':
      return { type: 'audio', media: media(messageId, content.audioMessage!, 'audio/ogg; codecs=opus'), voice: content.audioMessage!.ptt === true };
    case 'documentMessage': {
      const doc = content.documentMessage!;
      return { type: 'document', media: media(messageId, doc, 'application/octet-stream'), filename: doc.fileName ?? '' };
    }
    case 'stickerMessage':
      return { type: 'sticker', media: media(messageId, content.stickerMessage!, 'image/webp'), animated: content.stickerMessage!.isAnimated === true };
    case 'locationMessage': {
      const loc = content.locationMessage!;
      return {
        type: 'location', latitude: loc.degreesLatitude ?? 0, longitude: loc.degreesLongitude ?? 0,
        ...(loc.name ? { name: loc.name } : {}), ...(loc.address ? { address: loc.address } : {}),
      };
    }
    case 'liveLocationMessage': {
      const loc = content.liveLocationMessage!;
      return { type: 'location', latitude: loc.degreesLatitude ?? 0, longitude: loc.degreesLongitude ?? 0 };
    }
    case 'contactMessage':
      return { type: 'contacts', contacts: [contactCard(content.contactMessage!)] };
    case 'contactsArrayMessage':
      return { type: 'contacts', contacts: (content.contactsArrayMessage!.contacts ?? []).map(contactCard) };
    case 'reactionMessage': {
      const reaction = content.reactionMessage!;
      return { type: 'reaction', messageId: reaction.key?.id ?? '', ...(reaction.text ? { emoji: reaction.text } : {}) };
    }
    case 'buttonsResponseMessage': {
      const reply = content.buttonsResponseMessage!;
      return { type: 'button', text: reply.selectedDisplayText ?? '', payload: reply.selectedButtonId ?? '' };
    }
    case 'templateButtonReplyMessage': {
      const reply = content.templateButtonReplyMessage!;
      return { type: 'button', text: reply.selectedDisplayText ?? '', payload: reply.selectedId ?? '' };
    }
    case 'listResponseMessage': {
      const reply = content.listResponseMessage!;
      return {
        type: 'list_reply', id: reply.singleSelectReply?.selectedRowId ?? '', title: reply.title ?? '',
        ...(reply.description ? { description: reply.description } : {}),
      };
    }
    case 'interactiveResponseMessage':
      return interactiveReply(content.interactiveResponseMessage!);
    default:
      return { type: 'unsupported', typeName: String(type) };
  }
}

function contactCard(card: proto.Message.IContactMessage): { formattedName: string; vcard: string } {
  return { formattedName: card.displayName ?? '', vcard: card.vcard ?? '' };
}

/** A native-flow reply: a list selection (`single_select`) or a button tap. */
function interactiveReply(reply: proto.Message.IInteractiveResponseMessage): InboundContent {
  const flow = reply.nativeFlowResponseMessage;
  const params = parseParams(flow?.paramsJson);
  const id = str(params.id) ?? '';
  const body = reply.body?.text ?? '';
  if (flow?.name === 'single_select') {
    const description = str(params.description);
    return { type: 'list_reply', id, title: str(params.title) ?? body, ...(description ? { description } : {}) };
  }
  return { type: 'button_reply', id, title: body || (str(params.display_text) ?? '') };
}
