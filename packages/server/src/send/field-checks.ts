import { ValidationError, type ActionButton, type ContactCard, type OutgoingContent } from '@parley/core';
import type { SendBodies } from './send-bodies.js';

/** Checks beyond the send schemas, before any I/O: each throws a 400 naming the field. */

/** The content with only members that have a value: optional texts given empty are left out. */
export function defined(content: OutgoingContent): OutgoingContent {
  return Object.fromEntries(Object.entries(content).filter(([, v]) => v !== undefined && v !== '')) as OutgoingContent;
}

export function checkPhone(value: string, field: string): void {
  const digits = value.replace(/\D/g, '');
  if (digits.length < 6 || digits.length > 15) throw new ValidationError(`${field} must have 6 to 15 digits with country code`);
}

export function checkHttpUrl(value: string, field: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(`${field} must be an absolute http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError(`${field} must be an absolute http or https URL`);
}

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** A reaction is one emoji (one grapheme that is pictographic), or empty to remove it. */
export function checkEmoji(text: string): void {
  if (text === '') return;
  if ([...graphemes.segment(text)].length !== 1 || !EMOJI.test(text)) {
    throw new ValidationError('body.text must be a single emoji, or empty to remove the reaction');
  }
}

/** Unix seconds of an ISO 8601 UTC timestamp whose fields are all in range. */
export function unixSecondsOf(iso: string, field: string): number {
  const ms = Date.parse(iso);
  // Date.parse rolls impossible days over (Feb 30 → Mar 2); a round trip catches them.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 16) !== iso.slice(0, 16)) {
    throw new ValidationError(`${field} must be a valid ISO 8601 UTC timestamp (for example 2025-06-01T18:30:00Z)`);
  }
  return Math.floor(ms / 1000);
}

export function cardsOf(cards: ContactCard[], field: string): ContactCard[] {
  cards.forEach((c, i) => checkPhone(c.phoneNumber, `${field}[${i}].phoneNumber`));
  return cards.map((c) => ({ fullName: c.fullName, phoneNumber: c.phoneNumber, ...(c.organization ? { organization: c.organization } : {}) }));
}

/** Reads one action button, refusing members of another button type. */
export function actionButton(b: SendBodies['button_action']['buttons'][number], i: number): ActionButton {
  const field = `body.buttons[${i}]`;
  const own = { cta_url: 'url', cta_call: 'phone_number', cta_copy: 'copy_code' } as const;
  for (const member of Object.values(own)) {
    if (member !== own[b.type] && b[member] !== undefined) throw new ValidationError(`${field}.${member} is not allowed on a ${b.type} button`);
  }
  const value = b[own[b.type]];
  if (value === undefined) throw new ValidationError(`${field}.${own[b.type]} is required on a ${b.type} button`);
  switch (b.type) {
    case 'cta_url':
      checkHttpUrl(value, `${field}.url`);
      return { type: 'cta_url', text: b.text, url: value };
    case 'cta_call':
      checkPhone(value, `${field}.phone_number`);
      return { type: 'cta_call', text: b.text, phone_number: value };
    case 'cta_copy':
      return { type: 'cta_copy', text: b.text, copy_code: value };
  }
}
