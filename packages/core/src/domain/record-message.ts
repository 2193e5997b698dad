import type { MessageContent } from './message.js';
import type { MediaInput, OutgoingContent } from './outgoing.js';

/** Where a sent medium came from (its URL when the caller gave one) and its type; never its bytes. */
function mediaMember(media: MediaInput, mimetype = media.mimetype): Record<string, unknown> {
  return { ...(media.sourceUrl ? { url: media.sourceUrl } : {}), mimetype };
}

function withCaption(member: Record<string, unknown>, caption: string | undefined): Record<string, unknown> {
  return caption ? { ...member, caption } : member;
}

/** `pix` → `pixMessage`, `group-invite` → `groupInviteMessage`. */
function memberName(type: string): string {
  return `${type.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())}Message`;
}

/**
 * The `message` of a record (spec 2.4) of an outgoing content, for a channel that is not WhatsApp:
 * the members every channel's records share (`extendedTextMessage`, `imageMessage`, `audioMessage`,
 * `videoMessage`, `documentMessage`, `locationMessage`, `reactionMessage`), with what the content
 * says (text, caption, the source URL and type of media; never media bytes). Another content type is
 * named after its type (`pollMessage`), with its text and number members. What the host records for
 * a send the channel has not taken when its driver declares no `pendingRecord`, and what a channel
 * may answer in its own records instead of writing these members by hand.
 */
export function recordMessageOf(content: OutgoingContent): MessageContent {
  switch (content.type) {
    case 'text':
      return { extendedTextMessage: { text: content.text } };
    case 'image':
    case 'video':
      return { [memberName(content.type)]: withCaption(mediaMember(content.media), content.caption) };
    case 'audio':
      return { audioMessage: { ...mediaMember(content.media), ptt: content.ptt === true } };
    case 'document':
      return { documentMessage: withCaption({ ...mediaMember(content.media, content.mimetype), fileName: content.fileName }, content.caption) };
    case 'location':
      return {
        locationMessage: {
          degreesLatitude: content.latitude, degreesLongitude: content.longitude,
          ...(content.name ? { name: content.name } : {}), ...(content.address ? { address: content.address } : {}),
        },
      };
    case 'reaction':
      return { reactionMessage: { key: { ...content.target }, text: content.emoji } };
    default:
      return {
        [memberName(content.type)]: Object.fromEntries(Object.entries(content).filter(([name, value]) => name !== 'type' && (typeof value === 'string' || typeof value === 'number'))),
      };
  }
}
