import { extractImageThumb } from '@whiskeysockets/baileys';

/** Width of the previews phones put in image and video messages, in pixels (Baileys' extractImageThumb default, 32). */
export const THUMBNAIL_WIDTH = 32;

/** Largest preview a phone is given through the control API (WhatsApp's previews are a few kB). */
export const MAX_THUMBNAIL_BYTES = 64 * 1024;

/**
 * A 32 × 32 grey JPEG: the preview of a video (phones take a frame; the simulator decodes no video) and of
 * image data this process cannot decode as an image.
 */
const PLACEHOLDER = Buffer.from(
  '/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/'
  + 'wAARCAAgACADASIAAhEBAxEB/8QAFAABAAAAAAAAAAAAAAAAAAAAAP/EABQQAQAAAAAAAAAAAAAAAAAAAAD/xAAUAQEAAAAAAAAAAAAAAAAAAAAA/8QAFBEBAAAAAAAAAAAAAAAAAAAAAP/aAAwDAQACEQMRAD8AAAAAAAAA/9k=',
  'base64',
);

/**
 * The inline preview (`jpegThumbnail`) a phone puts in an image or video message, as WhatsApp's apps do: a
 * JPEG {@link THUMBNAIL_WIDTH} pixels wide of the image, made by Baileys' extractImageThumb (sharp or jimp,
 * whichever this process has), else {@link PLACEHOLDER}.
 */
export async function phoneThumbnail(kind: 'image' | 'video', data: Buffer): Promise<Buffer> {
  if (kind === 'image') {
    try {
      return (await extractImageThumb(data, THUMBNAIL_WIDTH)).buffer;
    } catch {
      // Not an image this process decodes (or no image library): the placeholder.
    }
  }
  return Buffer.from(PLACEHOLDER);
}
