import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ValidationError } from '@parley/core';
import { describeAjvError } from './ajv-errors.js';
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

/** Runs a compiled validator; throws ValidationError (400) naming every failing field. */
export function check(validate: ValidateFunction, value: unknown, root: string): void {
  if (validate(value)) return;
  // An `if`/`then` failure is described by the failing `then`/`else` keyword itself.
  const problems = (validate.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => describeAjvError(e, root));
  const unique = [...new Map(problems.map((p) => [p.message, p])).values()];
  throw new ValidationError(unique.map((p) => p.message).join('; '), { fields: unique });
}
