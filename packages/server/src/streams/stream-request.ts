import { isUlid, ValidationError } from '@parley/core';

/** What a stream request asks for besides its selection. */
export interface StreamRequest {
  /** Resume position: `Last-Event-ID` when sent (browsers' EventSource sends it on reconnect), else `?after=`. */
  after?: string;
  /** `?format=`, one of the registered webhook formats. */
  format?: string;
}

/**
 * Reads and checks a stream request's resume position and format, for the SSE routes and the
 * WebSocket upgrade alike. Throws ValidationError (400) naming the header or query member.
 */
export function readStreamRequest(query: Record<string, unknown>, lastEventId: unknown, formats: ReadonlySet<string>): StreamRequest {
  const out: StreamRequest = {};
  if (query.after !== undefined) {
    if (typeof query.after !== 'string' || !isUlid(query.after)) throw new ValidationError('query.after must be an event id (26 characters, as sent in `id:`)');
    out.after = query.after;
  }
  if (lastEventId !== undefined && lastEventId !== '') {
    if (typeof lastEventId !== 'string' || !isUlid(lastEventId)) throw new ValidationError('header Last-Event-ID must be an event id (26 characters, as sent in `id:`)');
    out.after = lastEventId;
  }
  if (query.format !== undefined) {
    if (typeof query.format !== 'string' || !formats.has(query.format)) {
      throw new ValidationError(`query.format must be one of the installed webhook formats: ${[...formats].join(', ')}`);
    }
    out.format = query.format;
  }
  return out;
}
