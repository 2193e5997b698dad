import { exampleOf } from './openapi-example.js';
import { errorResponse, type JsonSchema } from './schema.js';
import type { RouteDefinition } from './route.js';
import { routeStatuses, STATUS_DESCRIPTIONS } from './route-statuses.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_SCHEMA, REPLAYED_HEADER } from './idempotency.js';

function parameters(route: RouteDefinition): unknown[] {
  const out: unknown[] = [];
  const params = (route.params?.properties ?? {}) as Record<string, JsonSchema>;
  for (const name of [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)) {
    out.push({
      name, in: 'path', required: true,
      description: name === 'key' ? 'Instance key (secret).' : undefined,
      schema: params[name] ?? { type: 'string' },
    });
  }
  const query = route.query as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined;
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    out.push({ name, in: 'query', required: query?.required?.includes(name) ?? false, schema });
  }
  if (route.idempotent) {
    out.push({
      name: IDEMPOTENCY_HEADER, in: 'header', required: false, schema: IDEMPOTENCY_KEY_SCHEMA,
      description: 'Makes a retry safe: the same key with the same request within 24 h answers the first answer again (same status and body, '
        + `with \`${REPLAYED_HEADER}: true\`) and does nothing new; with a different request it answers 422. Keys are per instance (admin routes: one admin scope).`,
    });
  }
  return out;
}

/** The response header of an answer replayed for an `Idempotency-Key`. */
const REPLAYED = {
  [REPLAYED_HEADER]: { description: 'Present (`true`) when the answer is the kept answer of an earlier request with the same `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } },
};

function success(route: RouteDefinition): unknown {
  const r = route.response as Record<string, unknown>;
  if (Array.isArray(r.binary)) {
    const content: Record<string, unknown> = Object.fromEntries((r.binary as string[]).map((t) => [t, { schema: { type: 'string', format: 'binary' } }]));
    // A route that answers bytes or JSON by a query parameter documents both (`{binary, json}`).
    if (r.json) content['application/json'] = { schema: r.json };
    return { description: r.json ? 'Raw bytes, or JSON' : 'Raw bytes', content };
  }
  // A prepared text answer; `schema` says what the text is when it is a JSON document.
  if (typeof r.text === 'string') return { description: 'Text', content: { [r.text as string]: { schema: (r.schema as JsonSchema | undefined) ?? { type: 'string' } } } };
  return { description: 'Success', content: { 'application/json': { schema: r } } };
}

/**
 * Builds the OpenAPI 3.1 document from the registered routes — the same schemas ajv enforces, and
 * the statuses of {@link routeStatuses}, which the HTTP app holds every answer to.
 */
export function buildOpenApi(routes: RouteDefinition[], info: { version: string; serverUrl?: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const op: Record<string, unknown> = {
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      parameters: parameters(route),
      responses: {
        200: route.idempotent ? { ...(success(route) as object), headers: REPLAYED } : success(route),
        ...Object.fromEntries(routeStatuses(route).filter((code) => code !== 200).map((code) => [code, code < 300
          ? { description: STATUS_DESCRIPTIONS[code] }
          : code < 400
          ? { description: STATUS_DESCRIPTIONS[code], headers: { Location: { schema: { type: 'string' } } } }
          : { description: STATUS_DESCRIPTIONS[code] ?? 'Error', content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.errorEnvelope?.name ?? 'Error'}` } } } }])),
      },
      ...(route.auth === 'admin' ? { security: [{ adminToken: [] }] } : {}),
      ...(route.auth === 'metrics' ? { security: [{ adminToken: [] }, { metricsToken: [] }] } : {}),
      ...(route.auth === 'credential' ? { security: [{ adminToken: [] }, { instanceKey: [] }] } : {}),
      ...(route.auth === 'bearer' ? { security: [{ instanceKey: [] }] } : {}),
    };
    if (route.body) {
      op.requestBody = {
        required: Boolean((route.body.required as string[] | undefined)?.length),
        // An example that works as it is (Swagger UI would otherwise fill every optional member with filler).
        content: { 'application/json': { schema: route.body, example: exampleOf(route.body) } },
      };
    }
    (paths[route.path] ??= {})[route.method] = op;
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Parley messaging gateway',
      version: info.version,
      description: 'One REST API for WhatsApp, Instagram and Messenger instances. Every path starts with the secret instance key; admin routes need `Authorization: Bearer <admin token>`. Every error answers `{"status", "error": {"code", "message", "details"?}}`. Task guides with runnable examples: [/docs/guides](/docs/guides).',
      license: { name: 'MIT' },
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    tags,
    paths,
    components: {
      schemas: { Error: errorResponse, ...Object.fromEntries(routes.flatMap((r) => (r.errorEnvelope ? [[r.errorEnvelope.name, r.errorEnvelope.schema]] : []))) },
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (PARLEY_ADMIN_TOKEN or the generated one in the data directory).' },
        instanceKey: {
          type: 'http', scheme: 'bearer',
          description: 'An instance key, where a route takes it in the `Authorization` header rather than in the path: `/mcp` and the Cloud API surface (`/{version}/…`, docs/cloud-api.md).',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'The metrics token (PARLEY_METRICS_TOKEN or `metrics.token`), accepted by `GET /metrics` only.' },
      },
    },
  };
}
