import express, { type NextFunction, type Request, type Response } from 'express';
import type { BodyReader } from './router.js';

/** Raw request bytes, captured by the JSON body parser for signature checks. */
export type RequestWithRaw = Request & { rawBody?: Buffer };

/** A body-parser style error: `type` is what the error handler maps to an answer. */
function bodyError(type: string, status: number, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { type, status, expose: true, ...extra });
}

/** `application/json`, `application/*+json`, optionally with `charset=utf-8`, nothing else. */
const PLAIN_JSON = /^application\/(?:[\w.-]+\+)?json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/** A request whose body was already read into memory (a cluster node that meant to forward it, then served it itself). */
export type PrereadRequest = Request & { prereadBody?: Buffer };

/** Parses a body read earlier as the readers below would have (JSON types only; others leave no body, as express.json). */
function parsePreread(req: Request, raw: Buffer, limitBytes: number): void {
  if (raw.length > limitBytes) throw bodyError('entity.too.large', 413, 'request entity too large', { limit: limitBytes, length: raw.length });
  const type = req.headers['content-type'];
  if (type === undefined || !/^application\/(?:[\w.-]+\+)?json\b/i.test(type)) return;
  (req as RequestWithRaw).rawBody = raw;
  const text = raw.toString('utf8');
  try {
    req.body = /\S/.test(text) ? JSON.parse(text) : {};
  } catch (err) {
    throw Object.assign(bodyError('entity.parse.failed', 400, (err as Error).message), { body: text });
  }
}

/** express.json with a limit; `strict: false` so that any JSON value parses (the router refuses non-objects as 400 validation_failed). */
function fallbackParser(limitBytes: number): Middleware {
  return express.json({
    limit: limitBytes,
    strict: false,
    type: ['application/json', 'application/*+json'],
    verify: (req, _res, buf) => {
      (req as RequestWithRaw).rawBody = buf;
    },
  });
}

/**
 * Parses JSON request bodies up to a per-route limit, keeping the raw bytes (`req.rawBody`) for
 * signature checks. The common case — a JSON content type in UTF-8, no content encoding, a declared
 * length within the limit — is read here directly; anything else (compressed bodies, other
 * charsets, chunked uploads) goes to express.json with the same limit, which it applies to the
 * inflated bytes. Both fail the same way: 413 `entity.too.large` (a declared length over the limit
 * is refused before a byte is read), 400 `entity.parse.failed` (not JSON), 400
 * `request.size.invalid`. Any JSON value parses: a body of `null` or `"abc"` is well-formed JSON of
 * the wrong type, which the router answers 400 validation_failed. express.json costs more per
 * request than the rest of a small send's HTTP handling.
 */
export function jsonBody(): BodyReader {
  const fallbacks = new Map<number, Middleware>();
  const read = (req: Request, res: Response, limitBytes: number, next: (err?: unknown) => void): void => {
    const preread = (req as PrereadRequest).prereadBody;
    if (preread) {
      try {
        parsePreread(req, preread, limitBytes);
      } catch (err) {
        next(err);
        return;
      }
      next();
      return;
    }
    const type = req.headers['content-type'];
    const length = req.headers['content-length'];
    const encoding = req.headers['content-encoding'];
    if (type === undefined || length === undefined || (encoding !== undefined && encoding !== 'identity') || !PLAIN_JSON.test(type)) {
      let fallback = fallbacks.get(limitBytes);
      if (!fallback) fallbacks.set(limitBytes, (fallback = fallbackParser(limitBytes)));
      fallback(req, res, next);
      return;
    }
    const declared = Number(length);
    if (declared > limitBytes) {
      // Not read: the error answer closes the connection instead (see error-handler.ts).
      next(bodyError('entity.too.large', 413, 'request entity too large', { limit: limitBytes, length: declared }));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    // The client went away mid-body (as express.json answers it; nobody is left to read the answer).
    req.once('error', () => next(bodyError('request.aborted', 400, 'request aborted')));
    req.once('end', () => {
      if (received !== declared) {
        next(bodyError('request.size.invalid', 400, 'request size did not match content length', { expected: declared, length: received }));
        return;
      }
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      (req as RequestWithRaw).rawBody = raw;
      const text = raw.toString('utf8');
      if (!/\S/.test(text)) {
        // As express.json: an empty body reads as an empty object.
        req.body = {};
        next();
        return;
      }
      try {
        req.body = JSON.parse(text);
      } catch (err) {
        next(Object.assign(bodyError('entity.parse.failed', 400, (err as Error).message), { body: text }));
        return;
      }
      next();
    });
  };
  return (req, res, limitBytes) => new Promise<void>((resolve, reject) => read(req, res, limitBytes, (err) => (err ? reject(err) : resolve())));
}
