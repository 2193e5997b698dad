import type { ServerResponse } from 'node:http';
import { SimError } from '../network/errors.js';

/**
 * How the media host serves one file, to test a client's limits against a host that misbehaves: without
 * `Content-Length` (chunked), or stalling (nothing more after `stallAfterBytes` bytes, the connection left
 * open). WhatsApp's CDN sends `Content-Length` and the whole body.
 */
export interface MediaServing {
  chunked?: boolean;
  stallAfterBytes?: number;
}

/** One download the host answered: how much of the body it wrote, and whether the client closed first. */
export interface MediaRequest {
  path: string;
  size: number;
  written: number;
  /** Set once the response closed: true when it closed before the whole body was written. */
  closedEarly?: boolean;
}

/** Bytes of one write: the host waits for the client to read each (`drain`), as a real server's socket does. */
const WRITE_BYTES = 64 * 1024;

/** `serve` of a control request, checked: an object with only `chunked` (boolean) and `stallAfterBytes` (integer ≥ 0); else 400. */
export function mediaServing(value: unknown): MediaServing | undefined {
  if (value === undefined || value === null) return undefined;
  const bad = (message: string, field = 'serve') => new SimError(400, 'invalid_request', message, { field });
  if (typeof value !== 'object' || Array.isArray(value)) throw bad('serve must be an object');
  const { chunked, stallAfterBytes, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw bad(`${unknown.map((name) => `body.serve.${name}`).join(', ')} not allowed`);
  if (chunked !== undefined && typeof chunked !== 'boolean') throw bad('serve.chunked must be a boolean', 'serve.chunked');
  if (stallAfterBytes !== undefined && !(Number.isSafeInteger(stallAfterBytes) && (stallAfterBytes as number) >= 0)) {
    throw bad('serve.stallAfterBytes must be an integer of at least 0', 'serve.stallAfterBytes');
  }
  return { ...(chunked !== undefined ? { chunked } : {}), ...(stallAfterBytes !== undefined ? { stallAfterBytes: stallAfterBytes as number } : {}) };
}

/** Writes `blob` as `serving` says, `WRITE_BYTES` at a time, recording in `request` what was written and how the response closed. */
export function serveBlob(res: ServerResponse, blob: Buffer, serving: MediaServing, request: MediaRequest): void {
  const end = Math.min(blob.length, serving.stallAfterBytes ?? blob.length);
  res.once('close', () => {
    request.closedEarly = request.written < blob.length;
  });
  res.writeHead(200, { 'content-type': 'application/octet-stream', ...(serving.chunked ? {} : { 'content-length': blob.length }) });
  const next = (): void => {
    while (request.written < end && !res.destroyed) {
      const piece = blob.subarray(request.written, Math.min(end, request.written + WRITE_BYTES));
      request.written += piece.length;
      if (!res.write(piece)) {
        res.once('drain', next);
        return;
      }
    }
    // A stalled file is never ended: the client sees the connection stay open with nothing coming.
    if (request.written === blob.length && !res.destroyed) res.end();
  };
  next();
}
