import { ValidationError } from '../errors.js';

/** Quiet hours: local wall-clock times in an IANA time zone during which nothing is sent. */
export interface QuietHours {
  /** `HH:MM`, 24-hour; the window may cross midnight (`22:00`–`07:00`). */
  start: string;
  /** `HH:MM`; sends due inside the window wait until this time. Must differ from `start`. */
  end: string;
  /** IANA time zone, e.g. `America/Sao_Paulo`. */
  timeZone: string;
}

/** The typing simulation: `composing` for a time proportional to the text, then the message, then `paused`. */
export interface TypingPolicy {
  /** Whether sends that do not say `typing` simulate it. */
  enabled: boolean;
  /** Typing time per character of the text (or caption). */
  msPerChar: number;
  /** Shortest typing time. */
  minMs: number;
  /** Longest typing time; at most {@link MAX_TYPING_MS}. */
  maxMs: number;
}

/**
 * How an instance's outbound queue paces its sends (issue 16). Limits are per instance; `null` turns
 * a limit off. Channel drivers declare their defaults ({@link ChannelDriver.pacing}); the queue API
 * sets an instance's own.
 */
export interface PacingPolicy {
  /** Sends per rolling minute, or null for no limit. */
  perMinute: number | null;
  /** Sends per rolling hour, or null for no limit; at least `perMinute` when both are set. */
  perHour: number | null;
  /** Least time between two sends of the instance. */
  minGapMs: number;
  /** A random extra of 0 to `jitterMs` added to every gap, so sends do not tick like a clock. */
  jitterMs: number;
  /** Least time between two sends to the same recipient. */
  recipientGapMs: number;
  quietHours: QuietHours | null;
  typing: TypingPolicy;
  /** Most sends the instance may hold queued; beyond it sends answer 429 with `Retry-After`. */
  maxQueued: number;
}

/** Longest typing simulation: well inside the queue's lease, so a send is never claimed twice while typing. */
export const MAX_TYPING_MS = 25_000;
/** Longest gap a policy may ask for (one day). */
export const MAX_GAP_MS = 86_400_000;
/** Largest queue bound a policy may set. */
export const MAX_QUEUED = 1_000_000;

/** No pacing at all: the default of channels whose own limits are the platform's (Meta) and of the sandbox. */
export const PACING_OFF: PacingPolicy = Object.freeze({
  perMinute: null, perHour: null, minGapMs: 0, jitterMs: 0, recipientGapMs: 0, quietHours: null,
  typing: Object.freeze({ enabled: false, msPerChar: 50, minMs: 1_000, maxMs: 8_000 }), maxQueued: 10_000,
}) as PacingPolicy;

/**
 * Conservative pacing for unofficial WhatsApp: at most 12 a minute and 200 an hour, 3–6 s between sends,
 * 10 s between two sends to one person, typing shown before texts.
 */
export const WHATSAPP_PACING: PacingPolicy = Object.freeze({
  perMinute: 12, perHour: 200, minGapMs: 3_000, jitterMs: 3_000, recipientGapMs: 10_000, quietHours: null,
  typing: Object.freeze({ enabled: true, msPerChar: 50, minMs: 1_000, maxMs: 8_000 }), maxQueued: 10_000,
}) as PacingPolicy;

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of an `HH:MM` time. */
export function minutesOf(hhmm: string): number {
  const m = HHMM.exec(hhmm)!;
  return Number(m[1]) * 60 + Number(m[2]);
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks what a schema cannot: a policy that could never send, or contradicts itself. Throws a
 * ValidationError naming the field (under `prefix`, e.g. `body`).
 */
export function checkPacingPolicy(policy: PacingPolicy, prefix = 'body'): void {
  const fail = (field: string, why: string) => {
    throw new ValidationError(`${prefix}.${field} ${why}`);
  };
  if (policy.perMinute !== null && policy.perHour !== null && policy.perHour < policy.perMinute) {
    fail('perHour', `(${policy.perHour}) must be at least perMinute (${policy.perMinute})`);
  }
  if (policy.perMinute !== null && policy.perMinute > 1 && policy.minGapMs * (policy.perMinute - 1) >= 60_000) {
    // Not an error by itself (the gap then rules), but a limit that can never be reached is a mistake:
    // perMinute sends span (perMinute − 1) gaps, which must fit inside the rolling minute.
    fail('perMinute', `(${policy.perMinute}) can never be reached with minGapMs ${policy.minGapMs}: lower one of them`);
  }
  const q = policy.quietHours;
  if (q) {
    if (!HHMM.test(q.start)) fail('quietHours.start', 'must be HH:MM (00:00 to 23:59)');
    if (!HHMM.test(q.end)) fail('quietHours.end', 'must be HH:MM (00:00 to 23:59)');
    if (q.start === q.end) fail('quietHours.end', 'must differ from quietHours.start (quiet all day would never send)');
    if (!isTimeZone(q.timeZone)) fail('quietHours.timeZone', `"${q.timeZone}" is not an IANA time zone`);
  }
  if (policy.typing.minMs > policy.typing.maxMs) fail('typing.minMs', `(${policy.typing.minMs}) must not exceed typing.maxMs (${policy.typing.maxMs})`);
}

/** The local wall-clock minute of the day (0–1439) at `ms` in `timeZone`. */
function localMinute(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return get('hour') * 60 + get('minute');
}

/**
 * The first minute at or after `ms` outside the quiet hours (`ms` itself when it is outside). Jumps by
 * the local minutes left in the window (again when a daylight-saving change made the window longer),
 * then narrows down to the first minute outside it (a change that made it shorter), so the end is
 * found in the window's own local time.
 */
export function afterQuietHours(ms: number, quiet: QuietHours): number {
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const inside = (at: number) => {
    const now = localMinute(at, quiet.timeZone);
    return start < end ? now >= start && now < end : now >= start || now < end;
  };
  if (!inside(ms)) return ms;
  let lo = ms - (ms % 60_000);
  let hi = lo;
  for (let step = 0; step < 4 && inside(hi); step++) {
    lo = hi;
    hi = lo + (((end - localMinute(lo, quiet.timeZone) + 1440) % 1440) || 1440) * 60_000;
  }
  // lo is inside, hi outside: the first minute outside lies between them.
  while (hi - lo > 60_000) {
    const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
    if (inside(mid)) lo = mid;
    else hi = mid;
  }
  return hi;
}
