import { randomBytes } from 'node:crypto';
import { type OutgoingContent, type OutgoingType } from '@parley/core';
import { pinDurationFor } from './whatsapp-content.js';

/**
 * Send types the Baileys channel relays as built (`relayMessage`): Baileys has no content builder
 * for them, so they never pass through `generateWAMessageContent` and carry no `messageContextInfo`.
 */
const RELAYED = new Set<OutgoingType>(['title', 'button_reply', 'button_action', 'pix', 'live-location', 'group-invite']);

/** Field numbers in WhatsApp's `Message` (WAProto.proto) of the members a send builds, to place `messageContextInfo` (35) among them. */
const FIELD_NUMBERS: Record<string, number> = {
  imageMessage: 3, contactMessage: 4, locationMessage: 5, extendedTextMessage: 6, documentMessage: 7, audioMessage: 8, videoMessage: 9,
  contactsArrayMessage: 13, liveLocationMessage: 18, stickerMessage: 26, groupInviteMessage: 28, productMessage: 30, interactiveMessage: 45,
  reactionMessage: 46, pollCreationMessage: 49, requestPhoneNumberMessage: 54, pinInChatMessage: 63, pollCreationMessageV3: 64,
  ptvMessage: 66, eventMessage: 75,
};
const CONTEXT_INFO_FIELD = 35;

/** Secrets drawn from the OS at once: one `randomBytes` call per 128 messages instead of one per message. */
const SECRETS_PER_DRAW = 128;
let secrets = Buffer.alloc(0);
let nextSecret = 0;

/** 32 bytes from the CSPRNG that no other secret shares (consecutive slices of one draw). */
function freshSecret(): Buffer {
  if (nextSecret >= secrets.length) {
    secrets = randomBytes(32 * SECRETS_PER_DRAW);
    nextSecret = 0;
  }
  nextSecret += 32;
  return secrets.subarray(nextSecret - 32, nextSecret);
}

/**
 * The `messageContextInfo` Baileys' `generateWAMessageContent` (Utils/messages.js) gives a send: a
 * fresh 32-byte `messageSecret` on every message except reactions (`shouldIncludeReportingToken`,
 * Utils/reporting-utils.js; for polls and events it is the key of their votes and responses), and on
 * a pin how long it lasts (`messageAddOnDurationInSecs`: the pin's duration, 0 to unpin). Undefined
 * for reactions and relayed types. Proto JSON: bytes in base64.
 */
export function messageContextInfo(content: OutgoingContent, secret?: Buffer): Record<string, unknown> | undefined {
  if (content.type === 'reaction' || RELAYED.has(content.type)) return undefined;
  const duration = content.type === 'pin' ? pinDurationFor(content.duration) : content.type === 'unpin' ? 0 : undefined;
  return { messageSecret: (secret ?? freshSecret()).toString('base64'), ...(duration === undefined ? {} : { messageAddOnDurationInSecs: duration }) };
}

/** `message` with `info` as its `messageContextInfo`, members in proto field order (as proto JSON writes them). */
export function withContextInfo(message: Record<string, unknown>, info: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!info) return message;
  const entries = Object.entries(message);
  const at = entries.findIndex(([name]) => (FIELD_NUMBERS[name] ?? 0) > CONTEXT_INFO_FIELD);
  entries.splice(at === -1 ? entries.length : at, 0, ['messageContextInfo', info]);
  return Object.fromEntries(entries);
}
