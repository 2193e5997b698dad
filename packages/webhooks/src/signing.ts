import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

const PREFIX = 'whsec_';
/** Above this many remembered keys, the memo starts over (one per instance delivering lately). */
const KEYS_KEPT = 4_096;
/** The HMAC key of each secret seen lately: decoded once, not per delivery. */
const keys = new Map<string, KeyObject>();

/** A new webhook secret as the Standard Webhooks spec writes them: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

/** The HMAC key of a secret: the base64 after `whsec_` decoded (a secret without the prefix is base64 as a whole). */
function secretKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    key = createSecretKey(Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64'));
    if (keys.size >= KEYS_KEPT) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/**
 * Standard Webhooks headers: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 * = `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`.
 */
export function standardWebhookHeaders(id: string, timestamp: number, body: string, secret: string): Record<string, string> {
  const signature = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
