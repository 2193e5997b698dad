import { addressNumber, ALLOW_NUMBER_ENTRY, ValidationError, type ChannelDirectory, type ChannelEvent } from '@parley/core';

/** A parsed `allowNumber`: every number, or a set of digit strings. */
export type AllowedNumbers = 'all' | ReadonlySet<string>;

const ENTRY = new RegExp(`^${ALLOW_NUMBER_ENTRY}$`);

/**
 * Parses `allowNumber`: `all`, or a comma-separated list of numbers written as digits with country code
 * (an optional leading `+` and spaces around entries are accepted). Group ids (`120363…`) are numbers
 * too. Throws ValidationError naming the field.
 */
export function parseAllowNumber(value: string): AllowedNumbers {
  const text = value.trim();
  if (text === 'all') return 'all';
  const numbers = new Set<string>();
  for (const entry of text.split(',')) {
    const match = ENTRY.exec(entry.trim());
    if (!match) throw new ValidationError('allowNumber must be "all" or a comma-separated list of numbers (6 to 20 digits with country code)');
    numbers.add(match[1]!);
  }
  return numbers;
}

/**
 * The numbers an event is about, or null for instance-level events that always pass. Only channels
 * whose drivers declare phone-number addressing have numbers: events of the others (Instagram,
 * Messenger) are instance-level for this filter. Each address counts by the number its channel's
 * addressing reads in it (`numberOf`; WhatsApp: the user part of a JID).
 */
export function counterpartNumbers(event: ChannelEvent, channels: Pick<ChannelDirectory, 'addressing'>): string[] | null {
  const addressing = channels.addressing(event.provider);
  if (addressing?.phoneNumbers !== true) return null;
  const numberOf = (address: string): string => addressNumber(addressing, address);
  switch (event.type) {
    case 'message':
      return [numberOf(event.message.chatJid), numberOf(event.message.from)];
    case 'message.status':
      return [numberOf(event.chatJid), numberOf(event.recipientId), ...(event.participant ? [numberOf(event.participant)] : [])];
    case 'presence':
      return [numberOf(event.jid), ...(event.chatJid ? [numberOf(event.chatJid)] : [])];
    case 'call':
      return [numberOf(event.from), numberOf(event.fromJid)];
    case 'group.participants':
      return [numberOf(event.groupJid), ...event.participants.map(numberOf)];
    case 'group.update':
      return event.groups.map((group) => numberOf(group.id));
    case 'chats.upsert':
      return event.chats.map((chat) => numberOf(chat.id));
    case 'chats.delete':
      return event.jids.map(numberOf);
    case 'contacts.upsert':
      return event.contacts.map((contact) => numberOf(contact.id));
    case 'contacts.delete':
      return event.jids.map(numberOf);
    case 'message.delete':
      return [numberOf(event.chatJid)];
    case 'connection':
    case 'qrcode':
    case 'health':
    case 'history':
      return null;
  }
}

/** True when `allowed` lets the event through: `all`, an instance-level event, or any counterpart listed. */
export function isAllowedNumber(event: ChannelEvent, allowed: AllowedNumbers, channels: Pick<ChannelDirectory, 'addressing'>): boolean {
  if (allowed === 'all') return true;
  const numbers = counterpartNumbers(event, channels);
  return numbers === null || numbers.some((number) => allowed.has(number));
}
