import { isParleyError, NotFoundError, ParleyError, UpstreamError } from '@parley/core';

/** HTTP-like status of a Baileys (Boom) error, when it has one. */
export function boomStatus(err: unknown): number | undefined {
  const e = err as { output?: { statusCode?: unknown }; isBoom?: unknown } | null;
  const code = e?.output?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Runs one call on the socket and turns its failure into a Parley error: `not found` answers from
 * WhatsApp (404) become NotFoundError naming `what`, anything else an UpstreamError (HTTP 502).
 */
export async function upstream<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toParleyError(what, err);
  }
}

/** See {@link upstream}. */
export function toParleyError(what: string, err: unknown): ParleyError {
  if (isParleyError(err)) return err;
  const status = boomStatus(err);
  if (status === 404) return new NotFoundError(what);
  const message = err instanceof Error ? err.message : String(err);
  return new UpstreamError(`WhatsApp refused ${what}: ${message}`, {
    ...(status !== undefined ? { upstreamCode: status } : {}),
    retryable: status === undefined || status >= 500 || status === 408 || status === 429,
  });
}
