import { MAX_TYPING_MS, ValidationError } from '@parley/core';

/** The per-message queue options every send body takes (issue 16). */
export interface SendOptions {
  /** Milliseconds to wait before sending (Evolution API's `delay`). */
  delay?: number;
  /** ISO 8601 time to send at (with `Z` or an offset); a past time sends at once. */
  sendAt?: string;
  /** Simulate typing first: true for the policy's time for this text, a number for that many ms, false for none. */
  typing?: boolean | number;
}

/** Longest `delay`, and farthest `sendAt` ahead: 30 days. */
export const MAX_SCHEDULE_MS = 30 * 86_400_000;

/** `YYYY-MM-DDTHH:MM[:SS[.fff]]` with `Z` or `±HH:MM`: a time that names its zone. */
const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Schema members of the options, added to every message send body. */
export const SEND_OPTION_SCHEMAS = {
  delay: {
    type: 'integer', minimum: 0, maximum: MAX_SCHEDULE_MS,
    description: 'Milliseconds to wait before sending (as Evolution API\'s `delay`); at most 30 days. Not with `sendAt`.',
  },
  sendAt: {
    type: 'string', minLength: 16, maxLength: 40,
    description: 'ISO 8601 time to send at, with `Z` or an offset (2026-06-01T18:30:00-03:00); a past time sends at once; at most 30 days ahead.',
  },
  typing: {
    anyOf: [{ type: 'boolean' }, { type: 'integer', minimum: 0, maximum: MAX_TYPING_MS }],
    description: `Show "typing…" before the message: true for the pacing policy's time for this text, or milliseconds (at most ${MAX_TYPING_MS}); false for none. Default: the policy's typing setting.`,
  },
} as const;

/** Unix ms of an ISO 8601 time with a zone whose fields are all in range, or a 400 naming `field`. */
export function parseSendAt(text: string, field: string): number {
  const m = ISO_WITH_ZONE.exec(text);
  const ms = m ? Date.parse(text) : Number.NaN;
  const [, y, mo, d, h, mi, sec] = m ?? [];
  // Date.parse rolls impossible days over (Feb 30 → Mar 2): check the fields against the parsed date in its own offset.
  const offset = m && m[7] !== 'Z' ? (m[7]!.startsWith('-') ? -1 : 1) * (Number(m[7]!.slice(1, 3)) * 60 + Number(m[7]!.slice(4, 6))) : 0;
  const local = new Date(ms + offset * 60_000);
  if (Number.isNaN(ms) || local.getUTCFullYear() !== Number(y) || local.getUTCMonth() + 1 !== Number(mo) || local.getUTCDate() !== Number(d)
    || local.getUTCHours() !== Number(h) || local.getUTCMinutes() !== Number(mi) || (sec !== undefined && local.getUTCSeconds() !== Number(sec))) {
    throw new ValidationError(`${field} must be an ISO 8601 time with a zone (for example 2026-06-01T18:30:00Z or 2026-06-01T15:30:00-03:00)`);
  }
  return ms;
}

/**
 * When the send becomes due: `now` + `delay`, or `sendAt` (now when past). 400 naming the field for
 * both at once, an unparseable `sendAt` or one more than 30 days ahead.
 */
export function dueAtOf(options: SendOptions, now: number): number {
  if (options.delay !== undefined && options.sendAt !== undefined) throw new ValidationError('body.sendAt cannot be combined with body.delay');
  if (options.sendAt !== undefined) {
    const at = parseSendAt(options.sendAt, 'body.sendAt');
    if (at - now > MAX_SCHEDULE_MS) throw new ValidationError('body.sendAt must be at most 30 days ahead');
    return Math.max(now, at);
  }
  return now + (options.delay ?? 0);
}
