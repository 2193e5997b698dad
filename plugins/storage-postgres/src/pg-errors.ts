/** Which errors of pg mean that PostgreSQL cannot be reached right now. */

/** Node.js network error codes that mean the server cannot be reached. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'EAI_AGAIN']);

/**
 * SQLSTATEs that mean "not now" rather than "wrong": connection exceptions (class 08), too many
 * connections, the server shutting down or starting, a statement cancelled by `statement_timeout`,
 * and the conflicts PostgreSQL resolves by aborting one transaction (serialization, deadlock).
 */
const TRANSIENT_SQLSTATE = /^(08...|53300|57P0[1-3]|57014|40001|40P01)$/;

/** Messages of pg and pg-pool for a connection that broke, timed out or was never made. */
const TRANSIENT_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|Connection refused|ended unexpectedly/i;

/** Whether an error of pg means that PostgreSQL cannot be reached right now (answered as HTTP 503). */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || TRANSIENT_SQLSTATE.test(code))) return true;
  if (err instanceof AggregateError) return err.errors.some(isTransient);
  return TRANSIENT_MESSAGE.test(err.message);
}
