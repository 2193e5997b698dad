import type { InboundLinkPreview, LinkPreview, OutgoingContent } from '@parley/core';
import { typedMember } from './typed-member.js';

/**
 * Members of a typed member that WhatsApp's proto numbers after `contextInfo` (17), so that proto
 * JSON writes them after it (among the members Parley sends).
 */
const AFTER_CONTEXT: Record<string, string[]> = { documentMessage: ['caption'] };

/** `ContextInfo` members in proto field order (stanzaId 1 … mentionedJid 15, nonJidMentions 70). */
const CONTEXT_ORDER = ['stanzaId', 'participant', 'quotedMessage', 'remoteJid', 'mentionedJid', 'nonJidMentions'];

/**
 * Merges `info` into the `contextInfo` of the typed member of `message` (proto JSON, changed in
 * place), creating it at its proto position, with its members in proto field order: a reply's quote
 * and a text's mentions share one `contextInfo`, as WhatsApp's apps and Baileys write it.
 */
export function mergeContextInfo(message: Record<string, unknown>, info: Record<string, unknown>): void {
  const [member, fields] = typedMember(message);
  const merged = { ...((fields.contextInfo as Record<string, unknown> | undefined) ?? {}), ...info };
  const rank = (name: string) => (CONTEXT_ORDER.includes(name) ? CONTEXT_ORDER.indexOf(name) : CONTEXT_ORDER.length);
  const contextInfo = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => rank(a) - rank(b)));
  const later = AFTER_CONTEXT[member] ?? [];
  const entries = Object.entries(fields).filter(([field]) => field !== 'contextInfo');
  message[member] = {
    ...Object.fromEntries(entries.filter(([field]) => !later.includes(field))),
    contextInfo,
    ...Object.fromEntries(entries.filter(([field]) => later.includes(field))),
  };
}

/**
 * The `contextInfo` members of a send's mentions: `mentionedJid`, and `nonJidMentions: 1` when it
 * mentions everyone in a group (what Baileys' `mentionAll` writes; the members are in
 * `mentionedJid` too, so apps without "mention all" still notify each of them). As Baileys'
 * `generateWAMessageContent` writes them: a text's `contextInfo` is created with `nonJidMentions`
 * (0 unless everyone), a media member's gets it only for everyone. Undefined without mentions.
 */
export function mentionContext(content: OutgoingContent): Record<string, unknown> | undefined {
  if (!('mentions' in content) && !('mentionAll' in content)) return undefined;
  const mentions = 'mentions' in content ? content.mentions ?? [] : [];
  const all = 'mentionAll' in content && content.mentionAll === true;
  if (mentions.length === 0 && !all) return undefined;
  return { ...(mentions.length ? { mentionedJid: mentions } : {}), ...(all || content.type === 'text' ? { nonJidMentions: all ? 1 : 0 } : {}) };
}

/**
 * The members of an `extendedTextMessage` that show a link preview, in proto field order, as
 * Baileys' `generateWAMessageContent` writes them for a `linkPreview` (previewType NONE, the
 * thumbnail inline as JPEG bytes in base64).
 */
export function previewMembers(preview: { url: string; title: string; description?: string | undefined; thumbnail?: { data: Buffer } | undefined }): Record<string, unknown> {
  return {
    matchedText: preview.url,
    ...(preview.description ? { description: preview.description } : {}),
    title: preview.title,
    previewType: 'NONE',
    ...(preview.thumbnail ? { jpegThumbnail: preview.thumbnail.data.toString('base64') } : {}),
  };
}

/** A `LinkPreview` as Baileys' `linkPreview` content option takes it (`urlInfo`). */
export function baileysLinkPreview(preview: LinkPreview): { 'canonical-url': string; 'matched-text': string; title: string; description?: string; jpegThumbnail?: Buffer } {
  return {
    'canonical-url': preview.url, 'matched-text': preview.url, title: preview.title,
    ...(preview.description ? { description: preview.description } : {}),
    ...(preview.thumbnail ? { jpegThumbnail: preview.thumbnail.data } : {}),
  };
}

type Fields = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The JIDs a received message mentions (its typed member's `contextInfo.mentionedJid`), or undefined. */
export function mentionsOf(message: Record<string, unknown>): string[] | undefined {
  const [, fields] = typedMember(message);
  const jids = ((fields.contextInfo as Fields | undefined)?.mentionedJid as unknown[] | undefined)?.filter((j): j is string => typeof j === 'string' && j !== '');
  return jids?.length ? jids : undefined;
}

/**
 * The link preview an `extendedTextMessage` (proto JSON or decoded) shows, or undefined: a link
 * with a title (apps set `matchedText` on every text with a link, previewed or not).
 */
export function inboundPreview(text: Fields | null | undefined): InboundLinkPreview | undefined {
  const url = str(text?.matchedText) ?? str(text?.canonicalUrl);
  const title = str(text?.title);
  if (!text || !url || !title) return undefined;
  const thumbnail = text.jpegThumbnail;
  return {
    url, title, ...(str(text.description) ? { description: text.description as string } : {}),
    thumbnail: thumbnail !== undefined && thumbnail !== null && (thumbnail as { length: number }).length > 0,
  };
}
