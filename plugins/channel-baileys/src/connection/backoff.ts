import type { ReconnectPolicy } from '../options.js';
import { RATE_LIMITED } from './disconnect-reason.js';

/**
 * The attempt a rate-limited close jumps to at least: five doublings past the first delay, as WhatsApp
 * Web backs off five steps further on a 429 (oxidezap/whatsapp-rust issue #342 and PR #353, read from
 * WA Web's WAWebHandleStreamError).
 */
const RATE_LIMITED_ATTEMPT = 6;

/**
 * The attempt number of the reconnection after a close with `code`, `attempts` having been made
 * since the connection last opened: the next one, or for a rate-limited close at least
 * {@link RATE_LIMITED_ATTEMPT} (2 s · 2^5 = 64 s with the default policy, still capped at `maxDelayMs`).
 */
export function nextAttempt(attempts: number, code: number): number {
  return code === RATE_LIMITED ? Math.max(attempts + 1, RATE_LIMITED_ATTEMPT) : attempts + 1;
}

/**
 * Delay before reconnection attempt `attempt` (1-based): `baseDelayMs · 2^(attempt-1)`, capped at
 * `maxDelayMs`, minus a random share of up to `jitter` of it. `random` answers in [0, 1).
 */
export function reconnectDelay(policy: ReconnectPolicy, attempt: number, random: () => number): number {
  const exponential = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
  const capped = Math.min(policy.maxDelayMs, exponential);
  return Math.round(capped * (1 - policy.jitter * random()));
}
