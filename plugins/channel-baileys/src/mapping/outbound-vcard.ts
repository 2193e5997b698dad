import type { ContactCard } from '@parley/core';

/** Escapes a vCard 3.0 text value (backslash, comma, semicolon, line breaks). */
function escape(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/;/g, '\\;').replace(/\r?\n/g, '\\n');
}

/**
 * The vCard 3.0 WhatsApp expects for a shared contact: `FN`, optional `ORG`, and a `TEL` carrying the
 * `waid` parameter so the recipient's app offers "Message" and "Add" for that number.
 */
export function buildVcard(card: ContactCard): string {
  const digits = card.phoneNumber.replace(/\D/g, '');
  const lines = ['BEGIN:VCARD', 'VERSION:3.0', `FN:${escape(card.fullName)}`];
  if (card.organization) lines.push(`ORG:${escape(card.organization)};`);
  lines.push(`TEL;type=CELL;type=VOICE;waid=${digits}:+${digits}`, 'END:VCARD');
  return lines.join('\n');
}
