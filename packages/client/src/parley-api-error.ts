/**
 * An error answer of the Parley API (`{"status", "error": {"code", "message", "details"?}}`), or a
 * non-2xx answer that was not in that shape (code `http_error`).
 */
export class ParleyApiError extends Error {
  override readonly name = 'ParleyApiError';

  constructor(
    /** HTTP status of the answer. */
    readonly status: number,
    /** Stable snake_case code (`validation_failed`, `instance_not_found`, `not_connected`, …). */
    readonly code: string,
    message: string,
    /** Structured context: failing fields, limits. */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Builds the error of a non-2xx answer from its body. */
export function apiErrorOf(status: number, body: unknown, fallbackText: string): ParleyApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    return new ParleyApiError(status, error.code, error.message, error.details);
  }
  return new ParleyApiError(status, 'http_error', `HTTP ${status}${fallbackText ? `: ${fallbackText.slice(0, 200)}` : ''}`);
}
