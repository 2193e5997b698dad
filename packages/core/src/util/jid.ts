import { ValidationError } from '../errors.js';

/** Suffix of a user JID on the main channel. */
export const USER_SUFFIX = '@s.whatsapp.net';
/** Suffix of a group JID. */
export const GROUP_SUFFIX = '@g.us';
/** Suffix of a LID. */
export const LID_SUFFIX = '@lid';
/** The status-broadcast JID that stories are posted to. */
export const STATUS_BROADCAST = 'status@broadcast';

/** True for a group JID. */
export function isGroupJid(jid: string): boolean {
  return jid.endsWith(GROUP_SUFFIX);
}

/**
 * Turns a recipient as callers give it (digits with country code, optionally with `+`, spaces or
 * dashes; or a full JID) into a JID. Throws ValidationError naming `field` for anything else.
 */
export function toJid(to: string, field = 'to'): string {
  const value = to.trim();
  if (value.includes('@')) {
    if (!/^[\w.:-]+@(s\.whatsapp\.net|g\.us|lid|broadcast|newsletter|c\.us)$/.test(value)) {
      throw new ValidationError(`${field} is not a valid JID`);
    }
    return value.replace(/@c\.us$/, USER_SUFFIX);
  }
  const digits = value.replace(/[\s()+-]/g, '');
  if (!/^\d{6,15}$/.test(digits)) throw new ValidationError(`${field} must be a phone number with country code (6 to 15 digits) or a JID`);
  return `${digits}${USER_SUFFIX}`;
}

/** The user part of a JID, without device suffix (`5511999:3@s.whatsapp.net` → `5511999`). */
export function jidUser(jid: string): string {
  return jid.split('@')[0]!.split(':')[0]!;
}
