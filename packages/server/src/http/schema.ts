/**
 * Terse JSON Schema builders. Every request and response schema of the REST API is written with
 * these; the same objects drive ajv validation and the OpenAPI document.
 */
export type JsonSchema = Record<string, unknown>;

type Extra = Record<string, unknown>;

export const s = {
  string: (extra: Extra = {}): JsonSchema => ({ type: 'string', ...extra }),
  /** A non-empty string with an upper bound. */
  text: (maxLength = 4096, extra: Extra = {}): JsonSchema => ({ type: 'string', minLength: 1, maxLength, ...extra }),
  integer: (extra: Extra = {}): JsonSchema => ({ type: 'integer', ...extra }),
  number: (extra: Extra = {}): JsonSchema => ({ type: 'number', ...extra }),
  boolean: (extra: Extra = {}): JsonSchema => ({ type: 'boolean', ...extra }),
  enum: <T extends string | number>(values: readonly T[], extra: Extra = {}): JsonSchema => ({ enum: [...values], ...extra }),
  array: (items: JsonSchema, extra: Extra = {}): JsonSchema => ({ type: 'array', items, ...extra }),
  nullable: (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] }),
  /** A closed object: unknown members are rejected. `required` lists the mandatory members. */
  object: (properties: Record<string, JsonSchema>, required: string[] = [], extra: Extra = {}): JsonSchema => ({
    type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}), ...extra,
  }),
  /** An object whose members are documented but not closed (answers may grow). */
  openObject: (properties: Record<string, JsonSchema>, required: string[] = [], extra: Extra = {}): JsonSchema => ({
    type: 'object', properties, ...(required.length ? { required } : {}), ...extra,
  }),
  /** Any JSON object. */
  anyObject: (extra: Extra = {}): JsonSchema => ({ type: 'object', ...extra }),
  /** A query flag: `true`/`false` (coerced). */
  flag: (extra: Extra = {}): JsonSchema => ({ type: 'boolean', ...extra }),
};

/** The envelope of a JSON success answer: `status` 200 plus the given members. */
export function okResponse(members: Record<string, JsonSchema>, required: string[] = Object.keys(members)): JsonSchema {
  return s.openObject({ status: s.integer({ const: 200 }), ...members }, ['status', ...required]);
}

/** `{status: 200, data: <schema>}`. */
export function dataResponse(data: JsonSchema): JsonSchema {
  return okResponse({ data });
}

/** `{status: 200, message: <text>}`. */
export const messageResponse = okResponse({ message: s.string() });

/** The error answer of every route. */
export const errorResponse = s.openObject(
  {
    status: s.integer({ minimum: 400, maximum: 599 }),
    error: s.openObject({ code: s.string(), message: s.string(), details: {} }, ['code', 'message']),
  },
  ['status', 'error'],
);
