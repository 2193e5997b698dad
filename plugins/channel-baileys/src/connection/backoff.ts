import type { ReconnectPolicy } from '../options.js';

/**
 * Delay before reconnection attempt `attempt` (1-based): `baseDelayMs · 2^(attempt-1)`, capped at
 * `maxDelayMs`, minus a random share of up to `jitter` of it. `random` answers in [0, 1).
 */
export function reconnectDelay(policy: ReconnectPolicy, attempt: number, random: () => number): number {
  const exponential = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
  const capped = Math.min(policy.maxDelayMs, exponential);
  return Math.round(capped * (1 - policy.jitter * random()));
}
