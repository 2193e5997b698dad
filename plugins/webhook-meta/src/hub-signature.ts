import { createHmac } from 'node:crypto';

/**
 * `X-Hub-Signature-256: sha256=<hex>`: HMAC-SHA256 of the exact body bytes, keyed by the secret's text,
 * as Meta signs its webhooks with the app secret. Receivers written for Meta verify it unchanged.
 */
export function hubSignatureHeaders(body: string, secret: string): Record<string, string> {
  return { 'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}` };
}

/**
 * The JSON text of a body as Meta sends its webhooks: every character outside printable ASCII
 * escaped as `\uXXXX` (per UTF-16 unit). Meta signs that text, and receivers written for it (the
 * whatsapp-api-js parser) escape the raw body the same way before checking the signature, so a raw
 * UTF-8 emoji would fail their check.
 */
export function metaJson(body: unknown): string {
  return JSON.stringify(body).replace(/[^\0-~]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
