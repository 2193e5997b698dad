import type { Delivery } from '@parley/core';

/** How one attempt ended, as the worker books it. */
export type AttemptResult =
  /** The target took it: HTTP 2xx, or a broker's confirm. `status` is 0 for a sink. */
  | { delivered: true; status: number; responseTimeMs: number }
  /**
   * It did not: retried on the schedule (a receiver's `retryAfterMs` postponing it), or dead-lettered
   * at once when `final`.
   */
  | { delivered: false; error: string; status?: number; responseTimeMs?: number; retryAfterMs?: number; final?: boolean };

/**
 * One way of carrying a queued delivery to its target. The worker owns the queue (claims, leases,
 * retries, dead letters); a transport only makes the attempt. Webhooks POST over HTTP; sinks publish to
 * a broker — both share one outbox, one worker and one retry schedule.
 */
export interface DeliveryTransport {
  /** What it delivers, as log lines name it (`webhook`, `sink`). */
  readonly kind: string;
  /**
   * Makes one attempt. May throw (a network error): the worker books it as a failed attempt. When
   * `signal` aborted (shutdown), the outcome is ignored and the lease brings the delivery back.
   */
  attempt(delivery: Delivery, signal: AbortSignal): Promise<AttemptResult>;
}
