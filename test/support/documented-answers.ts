import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ParleyClient, type InstanceClient } from '@parley/client';
import type { TestResponse, TestServer } from './test-server.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Operation = { operationId: string; responses: Record<string, { content?: Record<string, { schema: object }> }> };

/** An operation's path template as a matcher; templates with fewer parameters win, as the router orders them. */
interface Template {
  method: string;
  pattern: RegExp;
  params: number;
  operation: Operation;
}

/** A request whose 200 JSON answer is checked against the OpenAPI document (see {@link documentedRequests}). */
export type DocumentedRequest = (method: string, path: string, body?: unknown) => Promise<TestResponse>;

/** Checks a JSON 200 answer of `method path` against the schema the OpenAPI document declares for it; throws otherwise. */
type AnswerCheck = (method: string, path: string, body: unknown) => void;

async function answerCheck(t: TestServer): Promise<AnswerCheck> {
  const doc = (await t.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const templates: Template[] = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({
    method: method.toUpperCase(),
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: (path.match(/\{/g) ?? []).length,
    operation,
  }))).sort((a, b) => a.params - b.params);
  const compiled = new Map<string, ValidateFunction>();
  return (method, path, body) => {
    const pathname = new URL(path, 'http://x').pathname;
    const template = templates.find((tpl) => tpl.method === method && tpl.pattern.test(pathname));
    if (!template) throw new Error(`${method} ${pathname} is not a documented operation`);
    const schema = template.operation.responses['200']?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${template.operation.operationId} documents no JSON answer`);
    let validate = compiled.get(template.operation.operationId);
    if (!validate) compiled.set(template.operation.operationId, (validate = ajv.compile(schema)));
    if (!validate(body)) {
      throw new Error(`${template.operation.operationId} answered outside its documented schema: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body)}`);
    }
  };
}

/**
 * `t.request` that also checks every JSON 200 answer against the schema the OpenAPI document
 * (`/openapi.json`) declares for that operation, so tests prove the documented contract and not
 * only the values they look at.
 */
export async function documentedRequests(t: TestServer): Promise<DocumentedRequest> {
  const check = await answerCheck(t);
  return async (method, path, body) => {
    const res = await t.request(method, path, body);
    const type = res.headers.get('content-type') ?? '';
    if (res.status !== 200 || !type.includes('json')) return res;
    check(method, path, res.body);
    return res;
  };
}

/**
 * The typed `@parley/client` of `t`, scoped to an instance key, whose answers are checked like
 * {@link documentedRequests}: every JSON 200 answer against its documented schema, and every JSON
 * error answer for a body `status` equal to the HTTP status (which `ParleyApiError` carries).
 */
export async function documentedClients(t: TestServer): Promise<(key: string) => InstanceClient> {
  const check = await answerCheck(t);
  const fetchChecked = async (input: string, init: RequestInit): Promise<Response> => {
    const res = await globalThis.fetch(input, init);
    if (!(res.headers.get('content-type') ?? '').includes('json')) return res;
    const body: unknown = await res.clone().json();
    if (res.status === 200) check(init.method ?? 'GET', new URL(input).pathname, body);
    else assert.equal((body as { status?: unknown }).status, res.status, JSON.stringify(body));
    return res;
  };
  const client = new ParleyClient({ baseUrl: t.url, adminToken: t.adminToken, fetch: fetchChecked });
  return (key) => client.instance(key);
}
