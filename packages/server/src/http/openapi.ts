import { errorResponse, type JsonSchema } from './schema.js';
import { isKeyed, readsBody, type RouteDefinition } from './route.js';

const COMMON_ERRORS: Record<number, string> = {
  400: 'The body, query or a path parameter fails its schema (the message names the field).',
  401: 'Missing or wrong admin token (or metrics token, on `/metrics`).',
  403: 'The instance may not do this (for example it is not an admin of the group).',
  404: 'Unknown instance key or resource.',
  409: 'The operation conflicts with the current state (for example the instance is not connected).',
  413: 'The body or media is over its size limit.',
  422: 'The instance\'s channel does not support this capability.',
  429: 'Too many failed authentications (unknown key, bad admin token) from this address; `Retry-After` says when to retry.',
  500: 'Internal error (no internals are exposed).',
  502: 'The channel\'s network refused or failed the operation.',
  503: 'Storage or the channel is temporarily unavailable.',
};

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
  return out;
}

function success(route: RouteDefinition): unknown {
  const r = route.response as Record<string, unknown>;
  if (Array.isArray(r.binary)) {
    const content: Record<string, unknown> = Object.fromEntries((r.binary as string[]).map((t) => [t, { schema: { type: 'string', format: 'binary' } }]));
    // A route that answers bytes or JSON by a query parameter documents both (`{binary, json}`).
    if (r.json) content['application/json'] = { schema: r.json };
    return { description: r.json ? 'Raw bytes, or JSON' : 'Raw bytes', content };
  }
  if (typeof r.text === 'string') return { description: 'Text', content: { [r.text as string]: { schema: { type: 'string' } } } };
  return { description: 'Success', content: { 'application/json': { schema: r } } };
}

function errorStatuses(route: RouteDefinition): number[] {
  const set = new Set<number>([400, 500, ...(route.errors ?? [])]);
  if (route.auth === 'instance') set.add(404);
  if (route.auth === 'admin' || route.auth === 'metrics') set.add(401);
  if (readsBody(route)) set.add(413);
  if (isKeyed(route)) set.add(429);
  return [...set].sort();
}

/** Builds the OpenAPI 3.1 document from the registered routes — the same schemas ajv enforces. */
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
        200: success(route),
        ...Object.fromEntries(errorStatuses(route).map((code) => [code, {
          description: COMMON_ERRORS[code] ?? 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        }])),
      },
      ...(route.auth === 'admin' ? { security: [{ adminToken: [] }] } : {}),
      ...(route.auth === 'metrics' ? { security: [{ adminToken: [] }, { metricsToken: [] }] } : {}),
    };
    if (route.body) {
      op.requestBody = {
        required: Boolean((route.body.required as string[] | undefined)?.length),
        content: { 'application/json': { schema: route.body } },
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
      description: 'One REST API for WhatsApp, Instagram and Messenger instances. Every path starts with the secret instance key; admin routes need `Authorization: Bearer <admin token>`. Every error answers `{"status", "error": {"code", "message", "details"?}}`.',
      license: { name: 'MIT' },
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    tags,
    paths,
    components: {
      schemas: { Error: errorResponse },
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (PARLEY_ADMIN_TOKEN or the generated one in the data directory).' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'The metrics token (PARLEY_METRICS_TOKEN or `metrics.token`), accepted by `GET /metrics` only.' },
      },
    },
  };
}
