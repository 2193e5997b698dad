import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
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

/**
 * `t.request` that also checks every JSON 200 answer against the schema the OpenAPI document
 * (`/openapi.json`) declares for that operation, so tests prove the documented contract and not
 * only the values they look at.
 */
export async function documentedRequests(t: TestServer): Promise<DocumentedRequest> {
  const doc = (await t.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const templates: Template[] = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({
    method: method.toUpperCase(),
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    params: (path.match(/\{/g) ?? []).length,
    operation,
  }))).sort((a, b) => a.params - b.params);
  const compiled = new Map<string, ValidateFunction>();
  return async (method, path, body) => {
    const res = await t.request(method, path, body);
    const type = res.headers.get('content-type') ?? '';
    if (res.status !== 200 || !type.includes('json')) return res;
    const pathname = new URL(path, 'http://x').pathname;
    const template = templates.find((tpl) => tpl.method === method && tpl.pattern.test(pathname));
    if (!template) throw new Error(`${method} ${pathname} is not a documented operation`);
    const schema = template.operation.responses['200']?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${template.operation.operationId} documents no JSON answer`);
    let validate = compiled.get(template.operation.operationId);
    if (!validate) compiled.set(template.operation.operationId, (validate = ajv.compile(schema)));
    if (!validate(res.body)) {
      throw new Error(`${template.operation.operationId} answered outside its documented schema: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(res.body)}`);
    }
    return res;
  };
}
