import { createHash } from 'node:crypto';
import { ValidationError, type MediaInput } from '@parley/core';
import { isAnimatedSticker } from './whatsapp-content.js';
import sharp from 'sharp';

/** WhatsApp's sticker canvas: 512 × 512 pixels, WebP. */
const SIZE = 512;
const FORMATS = new Set(['png', 'jpeg', 'gif']);

/** A sticker as WhatsApp carries it. */
export interface WebpSticker {
  data: Buffer;
  mimetype: 'image/webp';
  /** True only when the image has more than one frame. */
  animated: boolean;
}

/**
 * Converts a PNG, JPEG or GIF image to a WhatsApp sticker: WebP fitted into a transparent 512 × 512
 * canvas, as WhatsApp's apps make them. Every frame of a multi-frame GIF is kept (an animated sticker);
 * a one-frame GIF becomes a still sticker. Baileys sends sticker bytes as they are given, and WhatsApp's
 * apps show only WebP stickers. A WebP file is already a sticker and goes as it is (animated when it
 * holds an `ANIM` chunk), like stickers forwarded from a sticker pack.
 */
export async function toWebpSticker(media: Pick<MediaInput, 'data' | 'mimetype'>): Promise<WebpSticker> {
  if (media.mimetype === 'image/webp') return { data: media.data, mimetype: 'image/webp', animated: isAnimatedSticker(media) };
  const meta = await sharp(media.data, { animated: true }).metadata().catch(() => undefined);
  if (!meta?.format || !FORMATS.has(meta.format)) throw new ValidationError('the sticker must be a PNG, JPEG, GIF or WebP image');
  const animated = (meta.pages ?? 1) > 1;
  const data = await sharp(media.data, { animated })
    .resize(SIZE, SIZE, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .webp(animated ? { loop: meta.loop ?? 0 } : {})
    .toBuffer();
  return { data, mimetype: 'image/webp', animated };
}

/**
 * Sticker media as both WhatsApp channels send it: {@link toWebpSticker}'s WebP, with the digest of
 * the converted bytes (the sandbox writes it into the message; Baileys computes its own on upload).
 */
export async function webpStickerMedia(media: MediaInput): Promise<MediaInput> {
  const sticker = await toWebpSticker(media);
  if (sticker.data === media.data) return media;
  return { ...media, data: sticker.data, mimetype: sticker.mimetype, sha256: createHash('sha256').update(sticker.data).digest('hex') };
}
