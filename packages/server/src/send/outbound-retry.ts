import { isParleyError, MAX_TYPING_MS, type EventError, type PacingPolicy } from '@parley/core';
import { typedText, type OutboundJob } from './outbound-job.js';

/** First wait after a failed or rate-limited send; doubles per attempt. */
export const BACKOFF_BASE_MS = 2_000;
/** Longest wait between two attempts. */
export const BACKOFF_CAP_MS = 300_000;
/**
 * Attempts before a send fails for good (its record becomes `ERROR`): 2 + 4 + … + 256 s, about 8.5
 * minutes of retrying in all.
 */
export const MAX_ATTEMPTS = 8;

/** How a failed send is treated. */
export type FailureKind = 'rate_limit' | 'retry' | 'final';

/**
 * Rate limits (an upstream HTTP 429, and Graph codes such as 613 and 4, which `@parley/meta-graph`
 * marks `kind: 'rate_limit'`) hold the whole instance back; a disconnected channel, an unavailable store or an
 * upstream failure marked retryable is tried again; anything else (a refused recipient, a channel
 * that cannot send this content, an unlinked channel) fails at once.
 */
export function failureKind(err: unknown): FailureKind {
  if (!isParleyError(err)) return 'retry';
  const details = (err.details ?? {}) as { kind?: unknown; httpStatus?: unknown; retryable?: unknown };
  if (details.kind === 'rate_limit' || details.httpStatus === 429) return 'rate_limit';
  if (err.code === 'not_connected' || err.status === 503 || (err.status === 502 && details.retryable === true)) return 'retry';
  return 'final';
}

/**
 * The `errors[]` item of the `failed` status of a send the queue gave up on: the Cloud API's code
 * where one names the cause (131047 for a user's closed messaging window, 131026 for a number not on
 * WhatsApp), else 131000 (generic).
 */
export function failedSendError(err: unknown, attempts: number): EventError {
  const message = err instanceof Error ? err.message : String(err);
  if (isParleyError(err) && err.code === 'outside_window') {
    return { code: 131047, title: 'Re-engagement message', message, details: 'outside_window' };
  }
  if (isParleyError(err) && err.code === 'not_on_whatsapp') {
    return { code: 131026, title: 'Message undeliverable', message, details: 'not_on_whatsapp' };
  }
  return { code: 131000, title: 'Send failed', message, details: `the outbound queue gave up after ${attempts} attempt(s)` };
}

/** Wait before attempt `attempts + 1`, after `attempts` failed ones. */
export function backoffMs(attempts: number): number {
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/** How long to show `composing` before the message: the body's `typing`, else the policy's, timed on the text. */
export function typingMs(job: OutboundJob, policy: PacingPolicy): number {
  if (typeof job.typing === 'number') return Math.min(job.typing, MAX_TYPING_MS);
  const enabled = job.typing ?? policy.typing.enabled;
  if (!enabled) return 0;
  const t = policy.typing;
  return Math.min(MAX_TYPING_MS, Math.max(t.minMs, Math.min(t.maxMs, typedText(job.content).length * t.msPerChar)));
}
