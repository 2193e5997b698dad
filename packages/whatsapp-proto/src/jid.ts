import { STATUS_BROADCAST, ValidationError, type AddressKind, type ChannelAddressing } from '@parley/core';

/** Suffix of a user JID on the main channel. */
export const USER_SUFFIX = '@s.whatsapp.net';
/** Suffix of a group JID. */
export const GROUP_SUFFIX = '@g.us';
/** Suffix of a LID. */
export const LID_SUFFIX = '@lid';

export { STATUS_BROADCAST };

/** True for a group JID. */
export function isGroupJid(jid: string): boolean {
  return jid.endsWith(GROUP_SUFFIX);
}

/** The JID of a group named by its JID or by the digits before `@g.us` (a path parameter). */
export function groupJid(id: string): string {
  return isGroupJid(id) ? id : `${id}${GROUP_SUFFIX}`;
}

/** JID domains {@link toJid} accepts (`c.us` is read as the user suffix). */
const JID_DOMAINS = '(?:s\\.whatsapp\\.net|g\\.us|lid|broadcast|newsletter|c\\.us)';

const JID_SHAPE = new RegExp(`^[\\w.:-]+@${JID_DOMAINS}$`);

/**
 * What {@link toJid} accepts, as one JSON Schema `pattern` (ECMAScript, as ajv runs it): digits with
 * country code (6 to 15, with `+`, spaces, dashes or parentheses anywhere), or a JID, with spaces
 * around. Request schemas carry it so the OpenAPI document states the rule the server enforces.
 */
export const RECIPIENT_PATTERN = `^(?:[\\s()+-]*(?:\\d[\\s()+-]*){6,15}|\\s*[\\w.:-]+@${JID_DOMAINS}\\s*)$`;

/** {@link RECIPIENT_PATTERN} with further alternatives (a send's `to` also takes social channels' user ids). */
export function recipientPatternOr(...alternatives: string[]): string {
  return `${RECIPIENT_PATTERN.slice(0, -2)}|${alternatives.join('|')})$`;
}

/** The sentence {@link toJid} answers for a value {@link RECIPIENT_PATTERN} refuses (after the field name). */
export const RECIPIENT_RULE = 'must be a phone number with country code (6 to 15 digits) or a JID';

/**
 * Turns a recipient as callers give it (digits with country code, optionally with `+`, spaces or
 * dashes; or a full JID) into a JID. Throws ValidationError naming `field` for anything else.
 */
export function toJid(to: string, field = 'to'): string {
  const value = to.trim();
  if (value.includes('@')) {
    if (!JID_SHAPE.test(value)) {
      throw new ValidationError(`${field} is not a valid JID`);
    }
    return value.replace(/@c\.us$/, USER_SUFFIX);
  }
  const digits = value.replace(/[\s()+-]/g, '');
  if (!/^\d{6,15}$/.test(digits)) throw new ValidationError(`${field} ${RECIPIENT_RULE}`);
  return `${digits}${USER_SUFFIX}`;
}

/** The user part of a JID, without device suffix (`5511999:3@s.whatsapp.net` → `5511999`). */
export function jidUser(jid: string): string {
  return jid.split('@')[0]!.split(':')[0]!;
}

/** What a JID names: a group (`@g.us`), a person (a user JID or a LID), or something else (a broadcast list, status, a newsletter). */
export function jidKind(jid: string): AddressKind {
  if (isGroupJid(jid)) return 'group';
  return jid.endsWith(USER_SUFFIX) || jid.endsWith(LID_SUFFIX) ? 'person' : 'other';
}

/**
 * WhatsApp's addressing, shared by every driver of the `whatsapp` channel (Baileys, the sandbox): a
 * phone number with country code or a JID, normalized to a JID by {@link toJid}; `allowNumber`
 * filters apply, to the user part of each JID. The adapter's `resolveRecipient` (Baileys: the
 * `onWhatsApp` lookup) then answers the JID the network files the number under.
 */
export const WHATSAPP_ADDRESSING: ChannelAddressing = Object.freeze({
  description: 'Phone number with country code (digits), or a JID.',
  phoneNumbers: true,
  schema: Object.freeze({
    pattern: RECIPIENT_PATTERN,
    rule: RECIPIENT_RULE,
    description: 'Phone number with country code (6 to 15 digits; `+`, spaces, dashes and parentheses allowed), or a JID.',
    example: '5511999990000',
  }),
  normalize: toJid,
  kind: jidKind,
  numberOf: jidUser,
  groups: Object.freeze({
    schema: Object.freeze({
      pattern: '^\\d{5,40}(-\\d{5,20})?(@g\\.us)?$', description: 'Group JID (`<digits>@g.us`), or its digits.', example: '120363000000000000@g.us',
    }),
    normalize: groupJid,
  }),
});
