import type { JsonSchema } from './schema.js';

/** Strings by format: values the formats' checks accept and a reader recognizes. */
const FORMAT_EXAMPLES: Record<string, string> = {
  uri: 'https://example.com/',
  'date-time': '2030-01-01T12:00:00Z',
  date: '2030-01-01',
  email: 'user@example.com',
};

/** Members whose name says what they hold: a readable value instead of a generic one. */
const NAMED_STRINGS: Record<string, string> = {
  text: 'Hello from Parley', caption: 'Hello from Parley', name: 'Parley', title: 'Parley', description: 'Sent through Parley',
};

/** Nesting past this depth answers nothing more (recursive schemas end here). */
const MAX_DEPTH = 8;

/**
 * An example of a request body that its own schema accepts as it is, for the OpenAPI document
 * (Swagger UI shows it in "Try it out"). It is built from the schema itself, so every route gets
 * one without writing it by hand: a schema's own `examples[0]` (or `example`), `const`, `default` or
 * first `enum` value wins; objects hold their required members (an object without any holds its
 * first member, since a body must usually set something); arrays hold `minItems` items (at least
 * one); numbers sit at their `minimum`, strings come from their format or member name, sized to
 * `minLength`/`maxLength`. A string with a `pattern` needs its own `examples` (no value is guessed
 * for a pattern: the OpenAPI test sends every example through the route's validator).
 */
export function exampleOf(schema: JsonSchema, name = '', depth = 0): unknown {
  if (depth > MAX_DEPTH) return undefined;
  const own = (schema.examples as unknown[] | undefined)?.[0] ?? schema.example;
  if (own !== undefined) return own;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) {
    const branch = branches.find((b) => b.type !== 'null') ?? branches[0]!;
    return exampleOf({ ...schema, anyOf: undefined, oneOf: undefined, ...branch }, name, depth + 1);
  }
  switch (schema.type) {
    case 'object': return objectExample(schema, depth);
    case 'array': {
      const item = exampleOf((schema.items as JsonSchema | undefined) ?? {}, name, depth + 1);
      // Items that must differ (poll options, …) are numbered.
      return Array.from({ length: Math.max(1, Number(schema.minItems ?? 1)) }, (_, i) => (schema.uniqueItems && typeof item === 'string' ? `${item} ${i + 1}` : item));
    }
    case 'integer':
    case 'number': return numberExample(schema);
    case 'boolean': return true;
    case 'string': return stringExample(schema, name);
    default: return undefined;
  }
}

function objectExample(schema: JsonSchema, depth: number): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required as string[] | undefined) ?? [];
  const names = required.length ? required : Object.keys(properties).slice(0, 1);
  const out: Record<string, unknown> = {};
  for (const member of names) {
    const value = exampleOf(properties[member] ?? {}, member, depth + 1);
    if (value !== undefined) out[member] = value;
  }
  return out;
}

function numberExample(schema: JsonSchema): number {
  const min = schema.minimum as number | undefined;
  const exclusive = schema.exclusiveMinimum as number | undefined;
  const max = schema.maximum as number | undefined;
  const value = min ?? (exclusive !== undefined ? exclusive + 1 : 1);
  return max !== undefined ? Math.min(value, max) : value;
}

function stringExample(schema: JsonSchema, name: string): string {
  const base = FORMAT_EXAMPLES[schema.format as string] ?? NAMED_STRINGS[name] ?? 'example';
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? Infinity);
  return base.padEnd(min, base).slice(0, Math.max(min, Math.min(base.length, max)));
}
