import { ValidationError } from '@parley/core';
import { IDEMPOTENCY_KEY_SCHEMA, IdempotencyGuard } from '../http/idempotency.js';
import type { RouteDefinition } from '../http/route.js';
import type { JsonSchema } from '../http/schema.js';
import type { ToolSpec } from './tool-catalog.js';

/** The argument an admin session's tools take to name the instance they act on. */
export const INSTANCE_ARGUMENT = 'instance';
/** The argument of tools over idempotent routes: their `Idempotency-Key`. */
export const IDEMPOTENCY_ARGUMENT = 'idempotencyKey';

/** Where a tool argument goes in the REST request of its route. */
type Place = 'path' | 'query' | 'body';

/** The REST request a tool call becomes: the route's path with its parameters filled, query, body, Idempotency-Key. */
export interface RouteRequest {
  path: string;
  query: Record<string, string>;
  body?: Record<string, unknown>;
  idempotencyKey?: string;
}

/** A tool bound to its route: the input schema MCP clients see and how arguments become a request. */
export interface DerivedTool {
  spec: ToolSpec;
  route: RouteDefinition;
  /** The JSON Schema of the tool's arguments, without the admin session's `instance`. */
  inputSchema: JsonSchema;
  /** The REST request for validated-by-the-route arguments; throws a 400 naming an argument no place takes. */
  request(args: Record<string, unknown>): RouteRequest;
}

interface ObjectSchema { properties?: Record<string, JsonSchema>; required?: string[] }

function membersOf(schema: JsonSchema | undefined, skip: readonly string[] = []): [string, JsonSchema, boolean][] {
  const object = (schema ?? {}) as ObjectSchema;
  return Object.entries(object.properties ?? {}).filter(([name]) => !skip.includes(name))
    .map(([name, member]) => [name, member, object.required?.includes(name) ?? false]);
}

/** A refused argument, named as the agent wrote it. */
function refused(name: string, message: string): ValidationError {
  return new ValidationError(`${name} ${message}`, { fields: [{ field: name, message: `${name} ${message}` }] });
}

/**
 * Derives a tool from its route: path parameters (but the key), query and body members become one
 * flat object of arguments, each with the route's own schema; members `fixed` by the tool are left
 * out. Throws at start-up when two places of a route share a name, which one flat object cannot hold.
 */
export function deriveTool(spec: ToolSpec, route: RouteDefinition): DerivedTool {
  if (route.auth !== 'instance') throw new Error(`tool ${spec.name}: ${route.operationId} is not an instance route`);
  const places = new Map<string, Place>();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const fixed = Object.keys(spec.fixed ?? {});
  const add = (place: Place, members: [string, JsonSchema, boolean][]) => {
    for (const [name, member, isRequired] of members) {
      if (places.has(name) || name === INSTANCE_ARGUMENT || name === IDEMPOTENCY_ARGUMENT) throw new Error(`tool ${spec.name}: argument ${name} is taken twice`);
      places.set(name, place);
      properties[name] = member;
      if (isRequired) required.push(name);
    }
  };
  add('path', membersOf(route.params, ['key']));
  add('query', membersOf(route.query, fixed));
  if (route.body && (route.body as { type?: string }).type !== 'object') throw new Error(`tool ${spec.name}: ${route.operationId}'s body is not an object`);
  add('body', membersOf(route.body));
  if (route.idempotent) {
    properties[IDEMPOTENCY_ARGUMENT] = { ...IDEMPOTENCY_KEY_SCHEMA, description: 'Makes a retry safe: the same key with the same arguments within 24 h answers the first answer again and sends nothing new.' };
  }
  const description = [route.summary, route.description, spec.note].filter(Boolean).join('\n\n');
  const inputSchema: JsonSchema = { type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}), description };

  const request = (args: Record<string, unknown>): RouteRequest => {
    const query: Record<string, string> = { ...spec.fixed };
    const body: Record<string, unknown> = {};
    const path: Record<string, string> = {};
    let idempotencyKey: string | undefined;
    for (const [name, value] of Object.entries(args)) {
      if (name === IDEMPOTENCY_ARGUMENT && route.idempotent) {
        if (typeof value !== 'string') throw refused(name, 'must be string');
        // Checked as the REST API checks the header (a control character could not even be sent in one).
        try {
          idempotencyKey = IdempotencyGuard.keyOf(value);
        } catch (err) {
          throw refused(name, (err as ValidationError & { details: { fields: { message: string }[] } }).details.fields[0]!.message);
        }
        continue;
      }
      const place = places.get(name) ?? (route.body ? 'body' : undefined);
      if (place === undefined) throw refused(name, 'is not allowed');
      if (place === 'body') {
        body[name] = value;
        continue;
      }
      // Path and query members travel as text, which the route's validators read back into numbers and flags.
      if (!['string', 'number', 'boolean'].includes(typeof value)) throw refused(name, `must be ${String((properties[name] as { type?: unknown }).type ?? 'string')}`);
      (place === 'path' ? path : query)[name] = String(value);
    }
    for (const name of required) if (places.get(name) === 'path' && path[name] === undefined) throw refused(name, 'is required');
    const filled = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'key' ? '{key}' : encodeURIComponent(path[name]!)));
    return { path: filled, query, ...(route.body ? { body } : {}), ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) };
  };
  return { spec, route, inputSchema, request };
}

/** The tools of `specs` over `routes` (every operation id must name a route). */
export function deriveTools(specs: readonly ToolSpec[], routes: readonly RouteDefinition[]): Map<string, DerivedTool> {
  const byId = new Map(routes.map((r) => [r.operationId, r]));
  return new Map(specs.map((spec) => {
    const route = byId.get(spec.operationId);
    if (!route) throw new Error(`tool ${spec.name}: no route ${spec.operationId}`);
    return [spec.name, deriveTool(spec, route)];
  }));
}
