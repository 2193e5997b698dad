import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { BoundedMemo } from './bounded-memo.js';

const PREFIX = 'whsec_';
/**
 * The HMAC key of each secret seen lately (one per instance delivering lately): the base64 after `whsec_`
 * decoded (a secret without the prefix is base64 as a whole), once, not per delivery.
 */
const keys = new BoundedMemo<KeyObject>(4_096, (secret) =>
  createSecretKey(Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')));

/** A new webhook secret as the Standard Webhooks spec writes them: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

/**
 * Standard Webhooks headers: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 * = `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`.
 */
export function standardWebhookHeaders(id: string, timestamp: number, body: string, secret: string): Record<string, string> {
  const signature = createHmac('sha256', keys.get(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
