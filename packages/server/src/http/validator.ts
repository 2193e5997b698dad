import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ValidationError } from '@parley/core';
import { describeAjvError, fieldPath } from './ajv-errors.js';
import type { JsonSchema } from './schema.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Compiles request schemas. Bodies are validated as sent (no coercion: `"1"` is not a number);
 * params and query strings are coerced to the declared types and get their defaults.
 */
export class RequestValidator {
  private readonly strictAjv = addFormats(new Ajv({ allErrors: true, strict: true, coerceTypes: false }));
  private readonly coercingAjv = addFormats(new Ajv({ allErrors: true, strict: true, coerceTypes: true, useDefaults: true }));

  /** Compiles a body schema. */
  body(schema: JsonSchema): ValidateFunction {
    return this.strictAjv.compile(schema);
  }

  /** Compiles a params or query schema. */
  strings(schema: JsonSchema): ValidateFunction {
    return this.coercingAjv.compile(schema);
  }
}

/**
 * The JSON pointer (relative to `value`) of the first number in `value` that is not finite, if any.
 * The pointer is built on the way back from a find only: a request without one (nearly all) builds no strings.
 */
function nonFinite(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : '';
  if (value === null || typeof value !== 'object') return undefined;
  for (const name of Object.keys(value)) {
    const found = nonFinite((value as Record<string, unknown>)[name]);
    if (found !== undefined) return `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}${found}`;
  }
  return undefined;
}

/**
 * Runs a compiled validator; throws ValidationError (400) naming every failing field. A number that
 * is not finite is refused too: ajv coerces the query strings `Infinity`, `-Infinity` and `1e999` to
 * ±Infinity, accepts them as integers and skips `minimum`/`maximum` for them (ajv#2212), and a JSON
 * body's `1e999` parses to Infinity where a schema leaves a member's type open.
 */
export function check(validate: ValidateFunction, value: unknown, root: string): void {
  if (validate(value)) {
    const pointer = nonFinite(value);
    if (pointer === undefined) return;
    const field = fieldPath(root, pointer);
    throw new ValidationError(`${field} must be a finite number`, { fields: [{ field, message: `${field} must be a finite number` }] });
  }
  // An `if`/`then` failure is described by the failing `then`/`else` keyword itself.
  const problems = (validate.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => describeAjvError(e, root));
  const unique = [...new Map(problems.map((p) => [p.message, p])).values()];
  throw new ValidationError(unique.map((p) => p.message).join('; '), { fields: unique });
}
