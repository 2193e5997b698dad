const PARLEY_ERROR = Symbol.for('parley.core.ParleyError');

/**
 * The one error model of Parley. Every failure that reaches a client is a {@link ParleyError}; the
 * server renders it as `{"status": <http>, "error": {"code", "message", "details"?}}`. Anything else
 * thrown is answered as a 500 `internal_error` without internals.
 */
export class ParleyError extends Error {
  /**
   * @param status - HTTP status the server answers with.
   * @param code - stable, machine-readable snake_case code.
   * @param message - human-readable explanation, safe to show to the client.
   * @param details - optional structured context (field paths, limits, retry hints).
   */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
    // Brand read by isParleyError; a global symbol, so duplicated copies of core agree.
    Object.defineProperty(this, PARLEY_ERROR, { value: true });
  }
}

/** A field path at the start of a validation message: `body.to`, `body.buttons[0].id`, `query.limit`, `path.jid`. */
const LEADING_FIELD = /^((?:body|query|path|header)(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*)(?=[\s:]|$)/;

/** One failing field of a 400 answer: its path from the request's root, and the sentence about it. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * 400: a body, query or parameter fails its schema or a semantic check. `message` names the field.
 * `details.fields` lists the failing fields ({@link FieldError}); when the caller gives none, the
 * field the message starts with is listed, so every answer that names a field carries it for a form
 * to show beside that field.
 */
export class ValidationError extends ParleyError {
  constructor(message: string, details?: unknown) {
    super(400, 'validation_failed', message, withFields(message, details));
  }
}

function withFields(message: string, details: unknown): unknown {
  const given = details as { fields?: unknown } | undefined;
  if (given?.fields !== undefined || (details !== undefined && (typeof details !== 'object' || details === null || Array.isArray(details)))) return details;
  const field = LEADING_FIELD.exec(message)?.[1];
  if (!field) return details;
  return { ...(details as object | undefined), fields: [{ field, message } satisfies FieldError] };
}

/** 401: missing or wrong credentials (admin token, Meta signature). */
export class UnauthorizedError extends ParleyError {
  constructor(message = 'missing or invalid credentials') {
    super(401, 'unauthorized', message);
  }
}

/** 403: the instance may not do this (for example a group member who is not an admin changing settings). */
export class ForbiddenError extends ParleyError {
  constructor(message: string, code = 'forbidden') {
    super(403, code, message);
  }
}

/** 404: an unknown instance key, message, chat, group, label, product… */
export class NotFoundError extends ParleyError {
  constructor(what: string, code = 'not_found') {
    super(404, code, `${what} not found`);
  }
}

/** 409: the operation conflicts with the current state (for example sending while not connected). */
export class ConflictError extends ParleyError {
  constructor(message: string, code = 'conflict', details?: unknown) {
    super(409, code, message, details);
  }
}

/** 413: a body or media payload over its limit. */
export class PayloadTooLargeError extends ParleyError {
  constructor(message: string, details?: unknown) {
    super(413, 'payload_too_large', message, details);
  }
}

/**
 * 413 `media_too_large`: received media (the attachment of a message a remote party sent) over the
 * limit of what a channel downloads, `media.maxDownloadBytes` of the configuration unless `setting`
 * names a tighter one. `size` is the size the message declared, when it declared one over the
 * limit; without it the download was stopped once more than `limit` bytes arrived. `details`
 * carries `limit`, `setting` and, when known, `size`.
 */
export class MediaTooLargeError extends ParleyError {
  constructor(
    what: string,
    readonly limit: number,
    readonly size?: number,
    readonly setting = 'media.maxDownloadBytes',
  ) {
    super(413, 'media_too_large', size === undefined
      ? `${what} is larger than ${limit} bytes, the limit of received media (${setting})`
      : `${what} is ${size} bytes, over ${limit} bytes, the limit of received media (${setting})`,
    { limit, setting, ...(size === undefined ? {} : { size }) });
  }
}

/** Which limit a {@link MediaDownloadTimeoutError} passed. */
export type MediaDownloadTimeoutSetting = 'media.downloadTimeoutMs' | 'media.downloadIdleMs';

/**
 * 504 `media_download_timeout`: the download of received media (from a host the message's sender
 * chose) was stopped, its connection closed, because it passed a time limit of the configuration:
 * `media.downloadTimeoutMs` for the whole download, `media.downloadIdleMs` waiting for its next
 * bytes. `details` carries `limitMs`, `setting` and `retryable: true` (a slow host may be faster
 * later).
 */
export class MediaDownloadTimeoutError extends ParleyError {
  constructor(
    what: string,
    readonly limitMs: number,
    readonly setting: MediaDownloadTimeoutSetting,
  ) {
    super(504, 'media_download_timeout', setting === 'media.downloadIdleMs'
      ? `${what} was not downloaded: nothing arrived for ${limitMs} ms, the limit of received media (${setting})`
      : `${what} was not downloaded within ${limitMs} ms, the limit of received media (${setting})`,
    { limitMs, setting, retryable: true });
  }
}

/**
 * 422: the instance's channel has no such capability. Thrown by {@link requireCapability}; never a
 * fake success. `message` reads `<channel> does not support <capability>` plus an optional reason.
 */
export class CapabilityNotSupportedError extends ParleyError {
  constructor(channel: string, capability: string, reason?: string) {
    super(422, 'capability_not_supported', `${channel} does not support ${capability}${reason ? `: ${reason}` : ''}`);
  }
}

/**
 * 422 `outside_window`: the channel refuses a message to this user now because its messaging window
 * is closed (Messenger and Instagram: more than 24 hours since the user last wrote; Meta's code 10
 * with subcode 2018278 or 2534022). Retrying does not help until the user writes again. `details`
 * carries the upstream `upstreamCode` and `subcode` and `retryable: false`; a queued send that fails
 * with it is reported as failed with the Cloud API's code 131047 (re-engagement message).
 */
export class OutsideWindowError extends ParleyError {
  constructor(message: string, details?: { upstreamCode?: number; subcode?: number; [k: string]: unknown }) {
    super(422, 'outside_window', message, { ...details, retryable: false });
  }
}

/** 502: the upstream network (WhatsApp, Graph API) refused or failed the operation. */
export class UpstreamError extends ParleyError {
  constructor(message: string, details?: { retryable?: boolean; upstreamCode?: string | number; [k: string]: unknown }) {
    super(502, 'upstream_error', message, details);
  }
}

/**
 * 502 `outcome_unknown`: the request reached the node that runs its instance (a cluster forwarded
 * it there), and the connection to that node broke, or the node stopped answering, before its
 * answer came. It may have been carried out or not, and the server cannot tell. Sending it again
 * is safe only with an `Idempotency-Key` (the same key as the first time): a request that did run
 * is then answered with its first result instead of running twice. `details.reason` says what
 * broke: `connection_lost` or `owner_unresponsive`; or `not_replicated`: the request ran on a
 * replicated store's primary, whose replicas did not confirm its writes in time, so a failover may
 * undo it (Redis with Sentinel and `waitReplicas`).
 */
export class OutcomeUnknownError extends ParleyError {
  constructor(message: string, reason: 'connection_lost' | 'owner_unresponsive' | 'not_replicated') {
    super(502, 'outcome_unknown', message, { reason, safeRetry: 'Idempotency-Key' });
  }
}

/**
 * 500 `sent_not_recorded`: the channel took the message (it is on its way to the recipient), and
 * storing its record then failed. The send must not be made again; `details.messageId` is its id.
 */
export class SentNotRecordedError extends ParleyError {
  /** @param cause - the storage failure, logged with the answer. */
  constructor(messageId: string, cause?: unknown) {
    super(500, 'sent_not_recorded', `message ${messageId} was sent, but storing its record failed; do not send it again`, { messageId });
    if (cause !== undefined) this.cause = cause;
  }
}

/** 503: a dependency (storage, channel) is temporarily unavailable; retry later. */
export class ServiceUnavailableError extends ParleyError {
  constructor(message: string, details?: unknown) {
    super(503, 'service_unavailable', message, details);
  }
}

/** True for a {@link ParleyError} of any subclass, also across duplicated module copies. */
export function isParleyError(err: unknown): err is ParleyError {
  // Checked by brand, not by shape: library errors (http-errors, fs) also carry `status` and `code`, and
  // their messages (file paths, internals) must never reach a client.
  return err instanceof ParleyError || (err instanceof Error && (err as unknown as Record<symbol, unknown>)[PARLEY_ERROR] === true);
}
