import { STATUS_CODES } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { isParleyError, type Logger } from '@parley/core';
import { answerBeforeBody } from './early-answer.js';
import type { MatchedRequest } from './router.js';

/** Sends the one error model: `{"status", "error": {"code", "message", "details"?}}`. */
export function sendError(res: Response, status: number, code: string, message: string, details?: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // Answered before the body was read: the rest of the upload is discarded or not read at all.
  answerBeforeBody(res.req, res);
  res.status(status).json({ status, error: details === undefined ? { code, message } : { code, message, details } });
}

/** Maps express body-parser failures and Parley errors to JSON; anything else is a 500 without internals. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const e = err as { type?: string; status?: number; expose?: boolean; message?: string; limit?: number };
    if (isParleyError(err)) {
      if (err.status >= 500) logger.error({ err, method: req.method, route: (req as MatchedRequest).parleyRoute }, 'request failed');
      const retryAfter = (err.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
      if (err.status === 429 && typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
      sendError(res, err.status, err.code, err.message, err.details);
    } else if (e.type === 'entity.too.large') {
      sendError(res, 413, 'payload_too_large', `request body exceeds the limit of ${e.limit} bytes`, { limit: e.limit });
    } else if (e.type === 'entity.parse.failed') {
      sendError(res, 400, 'malformed_json', 'request body is not valid JSON');
    } else if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      sendError(res, 415, 'unsupported_media_type', e.message ?? 'unsupported body encoding');
    } else if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      // Client errors of express and its middleware (static files); a wrapped error's message is never shown.
      sendError(res, e.status, e.status === 404 ? 'not_found' : 'bad_request', (e.expose && e.message) || STATUS_CODES[e.status] || 'bad request');
    } else {
      logger.error({ err, method: req.method, route: (req as MatchedRequest).parleyRoute }, 'unhandled error');
      sendError(res, 500, 'internal_error', 'internal server error');
    }
  };
}
