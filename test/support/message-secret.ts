import assert from 'node:assert/strict';

/**
 * Stands for a message's `messageContextInfo.messageSecret` in expectations: 32 random bytes per
 * send (as Baileys' `generateWAMessageContent` makes them), so a test checks its length and compares
 * everything else exactly.
 */
export const MESSAGE_SECRET = '<32-byte messageSecret>';

/** `message` with its secret checked (32 bytes, base64) and replaced by {@link MESSAGE_SECRET}. */
export function secretMarked<T>(message: T): T {
  const info = (message as { messageContextInfo?: Record<string, unknown> } | null)?.messageContextInfo;
  if (info?.messageSecret === undefined) return message;
  assert.equal(Buffer.from(String(info.messageSecret), 'base64').length, 32, 'messageSecret is 32 bytes');
  return { ...message, messageContextInfo: { ...info, messageSecret: MESSAGE_SECRET } };
}

/**
 * The expected `message` of a send WhatsApp gives a secret (every send but reactions and relayed
 * interactive messages, live locations and group invites): `typed` plus its `messageContextInfo`.
 */
export function sealed(typed: Record<string, unknown>, info: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageContextInfo: { messageSecret: MESSAGE_SECRET, ...info }, ...typed };
}
