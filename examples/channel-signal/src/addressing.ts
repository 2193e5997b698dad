import { ValidationError, type AddressKind, type ChannelAddressing } from '@parley/core';

/** An account: a UUID (any case; kept in lower case, as Signal's service ids are). */
const ACCOUNT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A group: `group.` and the group id in base64 (signal-cli's form of a group recipient). */
const GROUP = /^group\.[A-Za-z0-9+/]{16,}={0,2}$/;

/** True for a group id. */
export function isGroupId(address: string): boolean {
  return address.startsWith('group.');
}

/**
 * A recipient as callers give it, as the network names it: an account UUID in lower case, or a
 * group id as it is. 400 naming `field` for anything else: there are no phone numbers here.
 */
export function normalizeSignalAddress(address: string, field: string): string {
  const value = address.trim();
  if (GROUP.test(value)) return value;
  const account = value.toLowerCase();
  if (ACCOUNT.test(account)) return account;
  throw new ValidationError(`${field} must be a Signal account UUID or a group id (group.<base64>)`, { field });
}

/**
 * How this channel addresses people: account UUIDs and group ids, never phone numbers (so the
 * instance's `allowNumber` webhook filter does not apply to its events).
 */
export const SIGNAL_ADDRESSING: ChannelAddressing = Object.freeze({
  description: 'A Signal account UUID, or a group id (`group.` followed by the base64 group id).',
  phoneNumbers: false,
  normalize: normalizeSignalAddress,
  kind: (address: string): AddressKind => (isGroupId(address) ? 'group' : 'person'),
  // Group paths (`/{key}/groups/{groupJid}`) take the group id exactly as sends do.
  groups: Object.freeze({
    schema: Object.freeze({ pattern: GROUP.source, description: 'A Signal group id (`group.` followed by the base64 group id).', example: 'group.aGVsbG8gc2lnbmFsIGdyb3Vw' }),
  }),
});
