import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip } from '@parley/testkit';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.js';

type Schema = { type?: string; minimum?: number; maximum?: number; properties?: Record<string, Schema> };
type Operation = { parameters?: { name: string; in: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, unknown> }> };
type Doc = { paths: Record<string, Record<string, Operation>> };

/** What ajv would take for an integer (ajv#2212 coerces the first three to ±Infinity) and what a double cannot hold. */
const NOT_INTEGERS = ['Infinity', '-Infinity', '1e999', 'NaN', '99999999999999999999'];

const storages = (['sqlite', 'redis'] as const).filter((storage) => storage !== 'redis' || serviceUrlOrSkip('REDIS_URL', 'numbers in requests on Redis storage'));

/**
 * Numbers in requests are bounded by the schemas the OpenAPI document states, for every integer
 * query and path parameter of every operation (walked from `/openapi.json`, not listed by hand) and
 * for JSON bodies, on SQLite and on Redis storage: what is not a finite integer within the declared
 * bounds is a 400 naming the field, never a 500 and never an answer with `limit: null`.
 */
for (const storage of storages) {
  describe(`numbers in requests (${storage} storage)`, () => {
    let t: TestServer;
    let doc: Doc;
    let key: string;

    before(async () => {
      t = await startTestServer({ storage });
      doc = (await t.request('GET', '/openapi.json')).body as Doc;
      key = (await t.connectedSandbox({ name: 'numbers', number: '5511970000301' })).key;
    });
    after(() => t.stop());

    const send = (method: string, template: string, path: string, body?: unknown): Promise<TestResponse> =>
      template.startsWith('/admin/') ? t.admin(method, path, body) : t.request(method, path, body);
    const fill = (template: string, name?: string, value?: string) => template.replace(/\{([^}]+)\}/g, (_, param: string) =>
      param === name ? encodeURIComponent(value!) : param === 'key' ? key : param === 'jid' || param === 'groupJid' ? '5511970000302' : 'probe');
    const naming = (res: TestResponse, field: string) => res.status === 400 && res.body.error.code === 'validation_failed'
      && (res.body.error.details.fields as { field: string }[]).some((f) => f.field === field);

    it('every integer query and path parameter: 400 naming it for Infinity, 1e999, NaN, 2^66 and past its bounds; the bounds themselves pass', async () => {
      const probed: string[] = [];
      const offenders: string[] = [];
      for (const [template, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const streams = 'text/event-stream' in (op.responses['200']?.content ?? {});
          for (const param of op.parameters ?? []) {
            if (param.schema.type !== 'integer' || (param.in !== 'query' && param.in !== 'path')) continue;
            const { minimum, maximum } = param.schema;
            assert.ok(minimum !== undefined && maximum !== undefined, `${method} ${template} ${param.name} declares both bounds`);
            const field = `${param.in === 'path' ? 'path' : 'query'}.${param.name}`;
            const at = (value: string) => param.in === 'path'
              ? fill(template, param.name, value)
              : `${fill(template)}?${param.name}=${encodeURIComponent(value)}`;
            probed.push(`${method.toUpperCase()} ${template} ${field}`);
            for (const value of [...NOT_INTEGERS, String(maximum + 1), String(minimum - 1)]) {
              const res = await send(method.toUpperCase(), template, at(value));
              if (!naming(res, field)) offenders.push(`${method} ${template} ${field}=${value}: ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
            }
            if (streams) continue;
            for (const value of [minimum, maximum]) {
              const res = await send(method.toUpperCase(), template, at(String(value)));
              if (res.status >= 500 || naming(res, field)) offenders.push(`${method} ${template} ${field}=${value} (a bound): ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
            }
          }
        }
      }
      assert.deepEqual(offenders, []);
      // The walk saw the parameters the red team hit (issue 24).
      for (const expected of ['GET /admin/instances query.limit', 'GET /{key}/queue query.page', 'GET /{key}/chat/{jid}/messages query.page',
        'GET /{key}/instance/webhook/dead-letters query.offset', 'GET /{key}/instance/sinks/{name}/dead-letters query.offset']) {
        assert.ok(probed.includes(expected), `${expected} probed`);
      }
    });

    it('a JSON body\'s 1e999 (Infinity once parsed) is a 400 naming the member, typed or in an open object, and creates nothing', async () => {
      const offenders: string[] = [];
      let probed = 0;
      for (const [template, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const properties = op.requestBody?.content['application/json']?.schema.properties ?? {};
          for (const [name, schema] of Object.entries(properties)) {
            if (schema.type !== 'integer' && schema.type !== 'number') continue;
            probed++;
            const res = await send(method.toUpperCase(), template, fill(template), `{"${name}": 1e999}`);
            if (!naming(res, `body.${name}`)) offenders.push(`${method} ${template} body.${name}: ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
          }
        }
      }
      assert.deepEqual(offenders, []);
      assert.ok(probed > 0, 'some body has a number');
      const before = (await t.admin('GET', '/admin/instances')).body.data.length;
      const open = await t.admin('POST', '/admin/instances', '{"channel": "sandbox", "options": {"extra": 1e999}}');
      assert.deepEqual([open.status, open.body.error], [400, {
        code: 'validation_failed', message: 'body.options.extra must be a finite number',
        details: { fields: [{ field: 'body.options.extra', message: 'body.options.extra must be a finite number' }] },
      }]);
      assert.equal((await t.admin('GET', '/admin/instances')).body.data.length, before);
    });
  });
}
