import type { RouteDefinition } from './route.js';
import type { JsonSchema } from './schema.js';

/** Keywords whose values are data, not schemas: never walked. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);
/** Keywords whose values map names (of members, of definitions) to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

function isInteger(type: unknown): boolean {
  return type === 'integer' || (Array.isArray(type) && type.includes('integer') && !type.includes('number'));
}

/** A copy of `schema` whose every integer is bounded on both sides (see {@link boundIntegers}). */
function boundedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(boundedSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(keyword)) out[keyword] = value;
    else if (SCHEMA_MAPS.has(keyword) && value !== null && typeof value === 'object') {
      out[keyword] = Object.fromEntries(Object.entries(value).map(([name, member]) => [name, boundedSchema(member)]));
    } else out[keyword] = boundedSchema(value);
  }
  if (isInteger(out.type)) {
    if (out.minimum === undefined && out.exclusiveMinimum === undefined) out.minimum = -Number.MAX_SAFE_INTEGER;
    if (out.maximum === undefined && out.exclusiveMaximum === undefined) out.maximum = Number.MAX_SAFE_INTEGER;
  }
  return out;
}

/**
 * The route with every integer of its path, query and body schemas bounded: where a schema declares
 * no minimum or maximum, the safe integers' (±2^53−1). Past them a double no longer holds every
 * integer (`99999999999999999999` reads as 1e20), and storage back ends refuse or round such offsets
 * and counts; bounded, they are a 400 naming the field. The router validates with these schemas and
 * the OpenAPI document states them. (Non-finite numbers are refused by the validator's `check`.)
 */
export function boundIntegers<R extends RouteDefinition>(route: R): R {
  return {
    ...route,
    ...(route.params ? { params: boundedSchema(route.params) as JsonSchema } : {}),
    ...(route.query ? { query: boundedSchema(route.query) as JsonSchema } : {}),
    ...(route.body ? { body: boundedSchema(route.body) as JsonSchema } : {}),
  };
}
