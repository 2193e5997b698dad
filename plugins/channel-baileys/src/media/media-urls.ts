/** Content types a product image may have. */
export const isImage = (mimetype: string): boolean => mimetype.startsWith('image/');

/**
 * True for an https URL on WhatsApp's own media servers (`*.whatsapp.net`): product images already
 * uploaded to a catalog. Baileys passes such URLs on without fetching them (`uploadingNecessaryImages`
 * keeps any URL containing `.whatsapp.net`; this check is stricter: the host itself must be one).
 */
export function isWhatsAppMediaUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' && url.hostname.endsWith('.whatsapp.net');
  } catch {
    return false;
  }
}
