import express, { type NextFunction, type Request, type Response } from 'express';
import type { RequestWithRaw } from './driver-routes.js';

/** A body-parser style error: `type` is what the error handler maps to an answer. */
function bodyError(type: string, status: number, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { type, status, expose: true, ...extra });
}

/** `application/json`, `application/*+json`, optionally with `charset=utf-8`, nothing else. */
const PLAIN_JSON = /^application\/(?:[\w.-]+\+)?json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

/**
 * Parses JSON request bodies, keeping the raw bytes (`req.rawBody`) for signature checks. The common
 * case — a JSON content type in UTF-8, no content encoding, a declared length within the limit — is
 * read here directly; anything else (compressed bodies, other charsets, chunked uploads) goes to
 * express.json, which handles every such case. Both fail the same way: 413 `entity.too.large`, 400
 * `entity.parse.failed` (only objects and arrays are accepted), 400 `request.size.invalid`.
 * express.json costs more per request than the rest of a small send's HTTP handling.
 */
export function jsonBody(limitBytes: number): (req: Request, res: Response, next: NextFunction) => void {
  const fallback = express.json({
    limit: limitBytes,
    type: ['application/json', 'application/*+json'],
    verify: (req, _res, buf) => {
      (req as RequestWithRaw).rawBody = buf;
    },
  });
  return (req, res, next) => {
    const type = req.headers['content-type'];
    const length = req.headers['content-length'];
    const encoding = req.headers['content-encoding'];
    if (type === undefined || length === undefined || (encoding !== undefined && encoding !== 'identity') || !PLAIN_JSON.test(type)) {
      fallback(req, res, next);
      return;
    }
    const declared = Number(length);
    if (declared > limitBytes) {
      req.resume();
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
      const first = /\S/.exec(text)?.[0];
      if (first === undefined) {
        // As express.json: an empty body reads as an empty object.
        req.body = {};
        next();
        return;
      }
      try {
        if (first !== '{' && first !== '[') throw new SyntaxError('only JSON objects and arrays are accepted');
        req.body = JSON.parse(text);
      } catch (err) {
        next(Object.assign(bodyError('entity.parse.failed', 400, (err as Error).message), { body: text }));
        return;
      }
      next();
    });
  };
}
