import { ForbiddenError, isParleyError, NotFoundError, ParleyError, UpstreamError } from '@parley/core';

/** HTTP-like status of a Baileys (Boom) error, when it has one. */
export function boomStatus(err: unknown): number | undefined {
  const e = err as { output?: { statusCode?: unknown }; isBoom?: unknown } | null;
  const code = e?.output?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** The code of an iq error answer: Baileys' assertNodeErrorFree throws a Boom with `data` = `<error code>` (its HTTP status stays 500). */
export function iqErrorCode(err: unknown): number | undefined {
  const data = (err as { data?: unknown } | null)?.data;
  return typeof data === 'number' && Number.isInteger(data) ? data : undefined;
}

/**
 * The iq error codes with which WhatsApp says that what a call names is not there for this account, and the
 * 404 Parley answers then. Baileys reports an iq error as a Boom whose HTTP status stays 500 (the code is in
 * its `data`), so without this such an answer would read as a WhatsApp failure (502).
 */
export interface Missing {
  readonly codes: readonly number[];
  readonly what: string;
  readonly code: string;
}

/** A group that does not exist (404 item-not-found) or that the account is not in (403 forbidden): whatsmeow group.go getGroupInfo (ErrGroupNotFound, ErrNotInGroup). */
export const GROUP_MISSING: Missing = { codes: [403, 404], what: 'group', code: 'group_not_found' };

/** A community, as {@link GROUP_MISSING}: communities are groups to WhatsApp's server. */
export const COMMUNITY_MISSING: Missing = { ...GROUP_MISSING, what: 'community', code: 'community_not_found' };

/** An invite code that was revoked (410 gone) or is not valid (406 not-acceptable): whatsmeow group.go GetGroupInfoFromLink, JoinGroupWithLink (ErrInviteLinkRevoked, ErrInviteLinkInvalid). */
export const INVITE_MISSING: Missing = { codes: [404, 406, 410], what: 'invite code', code: 'invite_not_found' };

/**
 * Runs one call on the socket and turns its failure into a Parley error: `not found` answers from
 * WhatsApp (404, or an iq error `missing` names) become NotFoundError, anything else an UpstreamError (HTTP 502).
 */
export async function upstream<T>(what: string, call: () => Promise<T>, missing?: Missing): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toParleyError(what, err, missing);
  }
}

/**
 * {@link upstream} for a change only a group's or community's admins may make: WhatsApp refuses a member
 * who is not an admin with 401 `not-authorized` (whatsmeow errors.go ErrIQNotAuthorized), which is the
 * instance's own lack of rights, not a WhatsApp failure: 403 `not_admin`, as the routes document.
 */
export async function adminUpstream<T>(what: string, call: () => Promise<T>, missing?: Missing): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (iqErrorCode(err) === 401) throw new ForbiddenError(`WhatsApp refused ${what}: only admins may do this`, 'not_admin');
    throw toParleyError(what, err, missing);
  }
}

/** See {@link upstream}. */
export function toParleyError(what: string, err: unknown, missing?: Missing): ParleyError {
  if (isParleyError(err)) return err;
  const iqCode = iqErrorCode(err);
  if (missing && iqCode !== undefined && missing.codes.includes(iqCode)) return new NotFoundError(missing.what, missing.code);
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
