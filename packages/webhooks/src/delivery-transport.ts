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
 * One way of carrying queued deliveries to their target. The worker owns the queue (claims, leases,
 * retries, dead letters); a transport only makes the attempts. Webhooks POST over HTTP; sinks publish to
 * a broker — both share one outbox, one worker and one retry schedule.
 */
export interface DeliveryTransport {
  /** What it delivers, as log lines name it (`webhook`, `sink`). */
  readonly kind: string;
  /**
   * Makes attempts of one lane's claimed deliveries, in lane order, and answers one result per delivery
   * it attempted: a prefix of `deliveries` that ends at the first one not delivered (the rest are not
   * attempted and go back to the queue as they were). Before starting any attempt but the first it asks
   * `mayStart` (false once the lease could not cover another attempt, or the worker is stopping). May throw (a
   * network error): the worker books the first delivery as failed. When `signal` aborted (shutdown),
   * only what was delivered is booked and the lease brings the rest back.
   */
  attempt(deliveries: readonly Delivery[], signal: AbortSignal, mayStart: () => boolean): Promise<AttemptResult[]>;
}

/**
 * Attempts deliveries one after the other with `attemptOne` (an error it throws is a failed attempt),
 * stopping after the first one not delivered, on abort, or when `mayStart` says no before the next one.
 */
export async function attemptInTurn(
  deliveries: readonly Delivery[], signal: AbortSignal, mayStart: () => boolean,
  attemptOne: (delivery: Delivery) => Promise<AttemptResult>,
): Promise<AttemptResult[]> {
  const results: AttemptResult[] = [];
  for (const delivery of deliveries) {
    if (results.length > 0 && (signal.aborted || !mayStart())) break;
    let result: AttemptResult;
    try {
      result = await attemptOne(delivery);
    } catch (error) {
      result = { delivered: false, error: error instanceof Error ? error.message : String(error) };
    }
    results.push(result);
    if (!result.delivered) break;
  }
  return results;
}
