/** The outcome of one delivery attempt: a 2xx answer, or a failure (another status, a timeout, a network error). */
export type AttemptOutcome = 'delivered' | 'failed';

/**
 * Told of every delivery attempt as it ends (the server's metrics count and time them). Called on
 * the delivery hot path, before the outcome is written to the queue: it must be cheap and must not throw.
 */
export interface DeliveryObserver {
  /** An attempt of a delivery in `format` ended with `outcome` after `seconds` (request start to answer or error). */
  attempted(format: string, outcome: AttemptOutcome, seconds: number): void;
}
