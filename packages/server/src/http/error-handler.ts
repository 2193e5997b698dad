import { STATUS_CODES } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { isParleyError, LogThrottle, type Logger } from '@parley/core';
import { answerBeforeBody } from './early-answer.js';
import { sendJson, type MatchedRequest } from './router.js';

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

/**
 * Failures of requests whose caller proved no key or token (public routes, unknown paths, static files)
 * are logged at most once per this period: anyone can send them.
 */
export const UNAUTHENTICATED_LOG_MS = 1000;

/** 503 codes of a healthy cluster at work: a client's retry (or the forwarding node's) succeeds. */
const ROUTINE_503 = new Set(['instance_moving', 'shutting_down']);

/**
 * Maps express body-parser failures and Parley errors to JSON; anything else is a 500 without internals.
 * Server errors are logged with the error (a 503 at warn with its code and message, no stack; the
 * cluster's routine ones at info); for a caller that proved no key or token, at most once a second per
 * message, `requests` counting those the line stands for.
 */
export function errorHandler(logger: Logger) {
  const throttles = { 'request failed': new LogThrottle(UNAUTHENTICATED_LOG_MS), 'unhandled error': new LogThrottle(UNAUTHENTICATED_LOG_MS) };
  const logError = (req: Request, line: Record<string, unknown>, msg: keyof typeof throttles, level: 'info' | 'warn' | 'error' = 'error'): void => {
    if ((req as MatchedRequest).parleyAuthenticated) return logger[level](line, msg);
    throttles[msg].note((requests) => logger[level]({ ...line, requests }, msg));
  };
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    // Whichever envelope answers, a 429 that knows its wait says it (the queue's, the failure limiter's).
    const retryAfter = isParleyError(err) ? (err.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds : undefined;
    if (isParleyError(err) && err.status === 429 && typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
    const own = (req as MatchedRequest).parleyErrorEnvelope?.answer(err);
    if (own) {
      if (own.status >= 500) logError(req, { err, method: req.method, route: (req as MatchedRequest).parleyRoute }, 'request failed');
      if (res.headersSent) return void res.end();
      answerBeforeBody(req, res);
      sendJson(res, own.status, own.body);
      return;
    }
    const e = err as { type?: string; status?: number; expose?: boolean; message?: string; limit?: number };
    if (isParleyError(err)) {
      const route = (req as MatchedRequest).parleyRoute;
      // A 503 says "not now" (another node owns the instance, shutting down, storage cannot serve):
      // expected, told by its code and message without a stack; the cluster's own at info.
      if (err.status === 503) logError(req, { code: err.code, error: err.message, method: req.method, route }, 'request failed', ROUTINE_503.has(err.code) ? 'info' : 'warn');
      else if (err.status >= 500) logError(req, { err, method: req.method, route }, 'request failed');
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
      logError(req, { err, method: req.method, route: (req as MatchedRequest).parleyRoute }, 'unhandled error');
      sendError(res, 500, 'internal_error', 'internal server error');
    }
  };
}
