import { redactUrlCredentials } from './redact.js';

/**
 * A one-line description of a thrown value for error messages, health details and logs: the first
 * cause of an `AggregateError` (what a failed multi-address connect throws), else the message (or
 * the name of an error without one), with URL credentials redacted, since driver messages often
 * repeat the connection string.
 */
export function describeError(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return describeError(err.errors[0]);
  const text = err instanceof Error ? err.message || err.name : String(err);
  return redactUrlCredentials(text);
}
