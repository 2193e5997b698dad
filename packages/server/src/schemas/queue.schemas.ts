import { MAX_GAP_MS, MAX_QUEUED, MAX_TYPING_MS } from '@parley/core';
import { s } from '../http/schema.js';

const HHMM = '^([01]\\d|2[0-3]):[0-5]\\d$';
const gap = (description: string) => s.integer({ minimum: 0, maximum: MAX_GAP_MS, description });

const typing = {
  enabled: s.boolean({ description: 'Whether sends that do not say `typing` show typing first.' }),
  msPerChar: s.integer({ minimum: 0, maximum: 1000, description: 'Typing time per character of the text or caption.' }),
  minMs: s.integer({ minimum: 0, maximum: MAX_TYPING_MS }),
  maxMs: s.integer({ minimum: 0, maximum: MAX_TYPING_MS }),
};

const members = {
  perMinute: s.nullable(s.integer({ minimum: 1, maximum: 10_000, description: 'Sends per rolling minute; null: no limit.' })),
  perHour: s.nullable(s.integer({ minimum: 1, maximum: 1_000_000, description: 'Sends per rolling hour; null: no limit. At least perMinute.' })),
  minGapMs: gap('Least time between two sends of the instance.'),
  jitterMs: gap('Random extra of 0 to jitterMs added to every gap.'),
  recipientGapMs: gap('Least time between two sends to the same recipient.'),
  quietHours: s.nullable(s.object({
    start: s.string({ pattern: HHMM, description: 'HH:MM, 24-hour local time.' }),
    end: s.string({ pattern: HHMM, description: 'HH:MM; may be before start (the window crosses midnight); not equal to start.' }),
    timeZone: s.string({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. America/Sao_Paulo.' }),
  }, ['start', 'end', 'timeZone'])),
  maxQueued: s.integer({ minimum: 1, maximum: MAX_QUEUED, description: 'Most sends the instance may hold queued; beyond it sends answer 429 with Retry-After.' }),
};

/** The pacing policy of an instance (core's PacingPolicy), as answered. */
export const pacingPolicySchema = s.openObject({ ...members, typing: s.openObject(typing, Object.keys(typing)) }, [...Object.keys(members), 'typing']);

/** `PUT /{key}/queue/policy`: members given replace the current ones (`typing` member by member). */
export const policyPatchSchema = s.object({ ...members, typing: s.object(typing) }, [], { minProperties: 1 });

/** Query of `GET /{key}/queue`. */
export const queuePageQuery = s.object({
  page: s.integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: s.integer({ minimum: 1, maximum: 500, default: 50 }),
});
