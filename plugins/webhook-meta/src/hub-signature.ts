import { createHmac } from 'node:crypto';

/**
 * `X-Hub-Signature-256: sha256=<hex>`: HMAC-SHA256 of the exact body bytes, keyed by the secret's text,
 * as Meta signs its webhooks with the app secret. Receivers written for Meta verify it unchanged.
 */
export function hubSignatureHeaders(body: string, secret: string): Record<string, string> {
  return { 'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}` };
}
