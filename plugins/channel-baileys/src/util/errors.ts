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
  return new UpstreamError(`WhatsApp refused ${what}: ${messageOf(err)}`, {
    ...(status !== undefined ? { upstreamCode: status } : {}),
    retryable: status === undefined || status >= 500 || status === 408 || status === 429,
  });
}

/**
 * The message of a failure; for the global `fetch`'s bare `fetch failed` (Baileys' downloads), with
 * the reason it carries as `cause` (a refused private address, a refused connection).
 */
function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  return err.message === 'fetch failed' && cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
}
