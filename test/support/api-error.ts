import assert from 'node:assert/strict';
import { ParleyApiError } from '@parley/client';

/**
 * An `assert.rejects` validator for a typed-client call that must fail with the server's error
 * model: checks the error is a {@link ParleyApiError} with exactly this status and code (and
 * message when given: exact, or matching).
 */
export function apiError(status: number, code: string, message?: string | RegExp): (err: unknown) => true {
  return (err: unknown) => {
    assert.ok(err instanceof ParleyApiError, `expected a ParleyApiError, got ${String(err)}`);
    assert.equal(err.status, status);
    assert.equal(err.code, code);
    if (typeof message === 'string') assert.equal(err.message, message);
    else if (message) assert.match(err.message, message);
    return true;
  };
}

/** An error answer of the server's error model. */
export interface ErrorAnswer {
  status: number;
  error: { code: string; message: string; details?: unknown };
}

/**
 * {@link apiError} for an exact error answer: status, code, message, and `details` (absent when the
 * expected answer has none).
 */
export function apiErrorAnswer(expected: ErrorAnswer): (err: unknown) => true {
  return (err: unknown) => {
    apiError(expected.status, expected.error.code, expected.error.message)(err);
    assert.deepEqual((err as ParleyApiError).details, expected.error.details);
    return true;
  };
}

/**
 * The 400 `validation_failed` answer whose message names one field (the field it starts with), as
 * the server answers it: the message, and `details.fields` listing that field (plus `details` given).
 */
export function fieldError(message: string, details: Record<string, unknown> = {}): ErrorAnswer {
  const field = /^[a-z]+(?:\.[\w$-]+|\[\d+\])*/.exec(message)![0];
  return { status: 400, error: { code: 'validation_failed', message, details: { ...details, fields: [{ field, message }] } } };
}
