import { createHash } from 'node:crypto';
import { ValidationError, type LinkPreview, type Logger, type MediaInput } from '@parley/core';
import { GuardedGetError } from '@parley/net';
import ogs from 'open-graph-scraper';
import { MESSAGE_LIMITS } from '../schemas/message.schemas.js';
import type { MediaResolver, MediaRoute } from '../services/media-resolver.js';

/** Bounds of a preview's fetches: the page (its metadata sits in the head) and its image. */
export const PREVIEW_LIMITS = { pageBytes: 1024 * 1024, pageTimeoutMs: 10_000, thumbnailBytes: MESSAGE_LIMITS.linkThumbnailBytes, text: 1024 } as const;

/** The first http(s) link of a text, without the punctuation that usually follows a link in prose. */
export function firstLink(text: string): string | undefined {
  const match = /\bhttps?:\/\/[^\s<>"'`]+/i.exec(text);
  return match?.[0].replace(/[.,;:!?)\]}'"]+$/, '');
}

/** Fetch failures that are the server's policy rather than the page's fault: they refuse the send. */
const REFUSALS = new Set(['private_address', 'private_proxy']);

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * The preview of `url` (the first link of a text, {@link firstLink}), as WhatsApp's apps build one: the page is fetched through
 * the media resolver's guard (private addresses refused unless allowed, redirects re-checked, the
 * instance's proxy, at most {@link PREVIEW_LIMITS}), its Open Graph / HTML metadata read by
 * open-graph-scraper from the HTML text, and its image fetched the same way as the thumbnail.
 *
 * 400 naming `body.text` when the link is refused by the private-network guard. A page that cannot be fetched, is not HTML or has no title answers undefined (the text
 * goes without preview, as in WhatsApp's apps); so does the thumbnail alone when its image fails.
 */
export async function buildLinkPreview(media: MediaResolver, url: string, route: MediaRoute, logger?: Logger): Promise<LinkPreview | undefined> {
  const field = 'body.text link';
  let page;
  try {
    page = await media.download(url, field, { maxBytes: PREVIEW_LIMITS.pageBytes, timeoutMs: PREVIEW_LIMITS.pageTimeoutMs }, route);
  } catch (err) {
    if (err instanceof GuardedGetError && REFUSALS.has(err.failure)) throw new ValidationError(`${field} could not be fetched: ${err.message}`);
    if (!(err instanceof GuardedGetError)) throw err;
    logger?.debug({ failure: err.failure }, 'link preview: the page could not be fetched; sending without preview');
    return undefined;
  }
  if (!HTML_TYPES.has(page.mimetype)) return undefined;
  const { error, result } = await ogs({ html: page.data.toString('utf8') });
  const title = clip(result.ogTitle);
  if (error || !title) return undefined;
  const description = clip(result.ogDescription);
  const image = result.ogImage?.find((i) => i.url)?.url;
  const thumbnail = image ? await fetchThumbnail(media, image, page.url, route) : undefined;
  return { url, title, ...(description ? { description } : {}), ...(thumbnail ? { thumbnail } : {}) };
}

/** The page's image, resolved against the page's address, when it fetches as an image within the bound. */
async function fetchThumbnail(media: MediaResolver, image: string, base: URL, route: MediaRoute): Promise<MediaInput | undefined> {
  let href: string;
  try {
    href = new URL(image, base).href;
  } catch {
    return undefined;
  }
  try {
    const answer = await media.download(href, 'thumbnail', { maxBytes: PREVIEW_LIMITS.thumbnailBytes, timeoutMs: PREVIEW_LIMITS.pageTimeoutMs }, route);
    if (!answer.mimetype.startsWith('image/')) return undefined;
    return { data: answer.data, mimetype: answer.mimetype, sourceUrl: href, sha256: createHash('sha256').update(answer.data).digest('hex') };
  } catch {
    // A refused, missing or oversized image leaves the preview without a thumbnail.
    return undefined;
  }
}

function clip(value: string | undefined): string | undefined {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text.slice(0, PREVIEW_LIMITS.text) : undefined;
}
