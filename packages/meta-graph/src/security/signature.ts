import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE_HEADER = /^sha256=([0-9a-f]{64})$/i;

/** The `X-Hub-Signature-256` value Meta sends for `rawBody`: `sha256=<hex HMAC-SHA256 keyed by the app secret>`. */
export function signatureHeader(rawBody: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/**
 * True when `header` is the signature of the exact raw bytes under `appSecret`. Compares digests with
 * `crypto.timingSafeEqual`; a missing or malformed header is false.
 */
export function verifySignature(rawBody: Buffer, header: string | undefined, appSecret: string): boolean {
  const match = header ? SIGNATURE_HEADER.exec(header.trim()) : null;
  if (!match) return false;
  const given = Buffer.from(match[1]!, 'hex');
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(given, expected);
}

/**
 * Constant-time string equality (for verify tokens): both sides are hashed first so neither the
 * content nor the length leaks through timing.
 */
export function constantTimeEquals(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
