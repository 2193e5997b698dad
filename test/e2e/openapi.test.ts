import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { RouteDefinition } from '@parley/server';
import { EVERY_CHANNEL_PLUGINS, startTestServer, type TestServer } from '../support/test-server.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
type Operation = {
  operationId: string; summary: string; tags: string[]; parameters: { name: string; in: string; required: boolean; schema: unknown }[];
  requestBody?: { required: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
  security?: unknown[];
};
type Doc = { openapi: string; info: Record<string, string>; tags: { name: string }[]; paths: Record<string, Record<string, Operation>>; components: Record<string, any> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const BOGUS_KEY = 'openapiProbeKeyAAAAAAAAAAAAAAAAAAAAAA';

/** Every operation in the document as `METHOD /path`. */
function documented(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`));
}

/** A schema compiler for the document's JSON Schemas (OpenAPI 3.1 = JSON Schema 2020-12 plus OpenAPI's own annotations). */
function schemaCompiler(): Ajv2020 {
  const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true }));
  ajv.addFormat('binary', true);
  for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) ajv.addKeyword(keyword);
  return ajv;
}

describe('OpenAPI document', () => {
  let t: TestServer;
  let doc: Doc;

  before(async () => {
    // Every channel plugin, so driver routes are part of the check.
    t = await startTestServer({
      plugins: EVERY_CHANNEL_PLUGINS,
      // The probes below fail to authenticate once per operation, far more than the default failure limit allows.
      config: { rateLimit: { failures: 100_000, windowSeconds: 60, blockSeconds: 60 } },
    });
    const res = await t.request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    doc = res.body;
  });
  after(async () => {
    await t.stop();
  });

  it('is the document the server built, OpenAPI 3.1.0 with info, tags, the Error schema and the admin security scheme', () => {
    assert.deepEqual(doc, JSON.parse(JSON.stringify(t.server.openapi)));
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.title, 'Parley messaging gateway');
    assert.equal(doc.info.version, t.server.context.version);
    assert.ok(doc.components.schemas.Error);
    assert.deepEqual(doc.components.securitySchemes.adminToken.type, 'http');
    assert.deepEqual(doc.components.securitySchemes.adminToken.scheme, 'bearer');
    const tagNames = doc.tags.map((tag) => tag.name);
    assert.equal(new Set(tagNames).size, tagNames.length);
  });

  it('documents every registered route (ParleyServer.routes) and every route the server serves', () => {
    const inDoc = new Set(documented(doc));
    const registered = t.server.routes.map((r: RouteDefinition) => `${r.method.toUpperCase()} ${r.path}`);
    assert.deepEqual(registered.filter((r) => !inDoc.has(r)), [], 'registered routes missing from the document');
    const mounted = t.server.servedRoutes();
    assert.ok(mounted.length >= registered.length);
    assert.deepEqual(mounted.filter((r) => !inDoc.has(r)), [], 'served routes missing from the document');
    assert.equal(inDoc.size, documented(doc).length);
    assert.equal(new Set(registered).size, inDoc.size, 'one registered route per documented operation');
  });

  it('lists no operation that does not exist: each documented operation answers something other than route_not_found', async () => {
    const missing: string[] = [];
    for (const entry of documented(doc)) {
      const [method, template] = entry.split(' ') as [string, string];
      const path = template.replace(/\{key\}/g, BOGUS_KEY).replace(/\{version\}/g, 'v21.0').replace(/\{[^}]+\}/g, 'probe');
      const op = doc.paths[template]![method.toLowerCase()]!;
      const res = await t.request(method, path, op.requestBody ? {} : undefined);
      if (res.status === 404 && res.body?.error?.code === 'route_not_found') missing.push(entry);
      // The key model: operations under /{key} resolve the instance first; admin operations check the token first.
      if (template.startsWith('/{key}/')) assert.deepEqual(res.body, { status: 404, error: { code: 'instance_not_found', message: 'instance not found' } }, entry);
      if (template.startsWith('/admin/') || template === '/metrics') assert.equal(res.status, 401, entry);
      // The Cloud API surface: no bearer token is its own 401 (docs/cloud-api.md).
      if (template.startsWith('/{version}/')) assert.deepEqual([res.status, res.body.error.code, res.body.error.type], [401, 190, 'OAuthException'], entry);
    }
    assert.deepEqual(missing, []);
  });

  it('answers, on the error paths of every operation, only statuses the document lists for that operation', async () => {
    // Three kinds of key (unknown, a sandbox instance never connected, a connected one), two fillers
    // for the other path parameters (not a JID, and a number a chat could have), and bodies that fail
    // (empty, not an object, not JSON). Deletions run last so the instances live through the rest.
    const fresh = await t.createInstance({ channel: 'sandbox', name: 'probe-fresh', number: '5511970000011' });
    const online = await t.connectedSandbox({ name: 'probe-online', number: '5511970000012' });
    // Event streams never end on their own: their error paths are probed by the event-stream tests.
    const isStream = (entry: string) => {
      const [method, template] = entry.split(' ') as [string, string];
      return 'text/event-stream' in (doc.paths[template]![method.toLowerCase()]!.responses['200']?.content ?? {});
    };
    const entries = documented(doc).filter((entry) => !isStream(entry)).sort((a, b) => Number(a.startsWith('DELETE ')) - Number(b.startsWith('DELETE ')));
    const offenders: string[] = [];
    const answered = new Map<string, Set<number>>();
    for (const key of [BOGUS_KEY, fresh.key, online.key]) {
      for (const filler of ['probe', '5511970000011']) {
        for (const entry of entries) {
          const [method, template] = entry.split(' ') as [string, string];
          const op = doc.paths[template]![method.toLowerCase()]!;
          const bare = template.replace(/\{key\}/g, key).replace(/\{[^}]+\}/g, filler);
          // Each integer query parameter also as `Infinity`, which ajv coerces and once let through (issue 24).
          const integers = op.parameters.filter((p) => p.in === 'query' && (p.schema as { type?: string }).type === 'integer').map((p) => p.name);
          const paths = [bare, ...integers.map((name) => `${bare}?${name}=Infinity`)];
          const bodies: unknown[] = !op.requestBody ? [undefined] : key === BOGUS_KEY && filler === 'probe' ? [{}, ['not an object'], '{"not json'] : [{}];
          for (const path of paths) {
            for (const body of bodies) {
              const res = template.startsWith('/admin/') ? await t.admin(method, path, body) : await t.request(method, path, body);
              (answered.get(entry) ?? answered.set(entry, new Set()).get(entry)!).add(res.status);
              // 500 is declared everywhere, and is always a bug.
              if (!(String(res.status) in op.responses) || res.status === 500) offenders.push(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 160)}`);
            }
          }
        }
      }
    }
    assert.deepEqual(offenders, []);
    assert.deepEqual(t.server.undeclaredAnswers(), []);
    // The probes reached past validation: restart of a never-connected instance is a documented 409.
    assert.ok(answered.get('POST /{key}/instance/restart')?.has(409), 'restart answered 409');
    assert.ok('409' in doc.paths['/{key}/instance/restart']!.post!.responses);
    assert.ok([...answered.values()].some((statuses) => statuses.has(422) || statuses.has(404)));
  });

  it('states the constraints the server enforces: recipients, URIs, LIDs, allowNumber', async () => {
    const body = (path: string, method = 'post') => doc.paths[path]![method]!.requestBody!.content['application/json']!.schema as { properties: Record<string, any> };
    const created = await t.connectedSandbox({ name: 'constraints', number: '5511970000021' });
    // Each documented pattern or format refuses what the server refuses, and accepts what it accepts.
    const ajv = schemaCompiler();
    const cases: { path: string; method?: string; member: string; field: string; good: unknown; bad: unknown[] }[] = [
      { path: '/{key}/labels/{labelId}', member: 'to', field: 'to', good: '5511970000022@s.whatsapp.net', bad: ['abc', '1234567890123456'] },
      { path: '/{key}/message/image', member: 'url', field: 'url', good: 'https://media.example.com/a.png', bad: ['not a url', 'data:text/plain,hi'] },
      { path: '/{key}/instance', method: 'put', member: 'webhookMessage', field: 'webhookMessage', good: '', bad: ['not a url', 'http://a b/'] },
      { path: '/{key}/instance', method: 'put', member: 'allowNumber', field: 'allowNumber', good: '120363025246125486, +5511977776666', bad: ['some', '123456789012345678901'] },
      { path: '/{key}/contacts/resolve-lids', member: 'lids', field: 'lids[0]', good: ['123456789012345@lid'], bad: [['5511970000022@s.whatsapp.net']] },
    ];
    for (const { path, method = 'post', member, field, good, bad } of cases) {
      const schema = body(path, method).properties[member];
      assert.ok(JSON.stringify(schema).match(/"(pattern|format)"/), `${method} ${path} ${member} states its rule`);
      const validate = ajv.compile(schema);
      assert.ok(validate(good), `${member} ${JSON.stringify(good)}: ${ajv.errorsText(validate.errors)}`);
      for (const value of bad) {
        assert.equal(validate(value), false, `${member} ${JSON.stringify(value)} is refused by the document`);
        const filled = path.replace('{key}', created.key).replace('{labelId}', '1');
        const res = await t.request(method.toUpperCase(), filled, { [member]: value });
        assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(value)}`);
        assert.ok(res.body.error.details.fields.some((f: { field: string }) => f.field === `body.${field}`), `${JSON.stringify(value)}: ${JSON.stringify(res.body)}`);
      }
    }
    assert.equal(body('/{key}/message/image').properties.url.else.then.format, 'uri');
    assert.equal(body('/{key}/instance', 'put').properties.webhookMessage.then.format, 'uri');
  });

  it('types /openapi.json as the JSON document it answers', async () => {
    const op = doc.paths['/openapi.json']!.get!;
    const schema = op.responses['200']!.content!['application/json']!.schema;
    assert.equal(schema.type, 'object');
    const validate = schemaCompiler().compile(schema);
    assert.ok(validate(doc), JSON.stringify(validate.errors));
    assert.equal(validate('{"openapi":"3.1.0"}'), false, 'not a string');
  });

  it('gives every operation a unique operationId, a summary, tags, and a 200 response with a schema', () => {
    const ids = new Map<string, string>();
    const tagNames = new Set(doc.tags.map((tag) => tag.name));
    for (const entry of documented(doc)) {
      const [method, path] = entry.split(' ') as [string, string];
      const op = doc.paths[path]![method.toLowerCase()]!;
      assert.match(op.operationId, /^[A-Za-z][A-Za-z0-9_]*$/, `${entry}: operationId must be an identifier`);
      if (!op.tags[0]!.startsWith('Channel: ')) assert.match(op.operationId, /^[a-z][A-Za-z0-9]*$/, `${entry}: operationId must be camelCase`);
      assert.ok(!ids.has(op.operationId), `${entry}: operationId ${op.operationId} also used by ${ids.get(op.operationId)}`);
      ids.set(op.operationId, entry);
      assert.equal(typeof op.summary, 'string');
      assert.ok(op.summary.trim().length > 3, `${entry}: summary`);
      assert.ok(op.tags.length > 0 && op.tags.every((tag) => tagNames.has(tag)), `${entry}: tags`);
      const ok = op.responses['200'];
      assert.ok(ok?.content && Object.keys(ok.content).length > 0, `${entry}: 200 response content`);
      for (const [type, media] of Object.entries(ok.content)) assert.ok(media.schema && typeof media.schema === 'object', `${entry}: 200 ${type} schema`);
      for (const [status, response] of Object.entries(op.responses)) {
        if (status === '200') continue;
        assert.match(status, /^[2345]\d\d$/, entry);
        if (status.startsWith('2')) {
          // Another success without a body (`/mcp` answers 202 to notifications alone).
          assert.equal(response.content, undefined, `${entry} ${status}`);
          assert.ok(response.description, `${entry} ${status}: description`);
          continue;
        }
        if (status.startsWith('3')) {
          // A redirect (a browser asking for `/` goes to the dashboard): no body, a Location header.
          assert.equal(response.content, undefined, `${entry} ${status}`);
          assert.ok((response as { headers?: Record<string, unknown> }).headers?.Location, `${entry} ${status}: Location header`);
          continue;
        }
        // The Cloud API surface answers failures in the Cloud API's envelope; every other route in Parley's.
        const envelope = path.startsWith('/{version}/') ? 'CloudApiError' : 'Error';
        assert.deepEqual(response.content, { 'application/json': { schema: { $ref: `#/components/schemas/${envelope}` } } }, `${entry} ${status}`);
      }
      // Driver routes declared `admin` (the WhatsApp session import) take the admin token too.
      if (path.startsWith('/admin/') || path === '/whatsapp/instances/{key}/session') assert.deepEqual(op.security, [{ adminToken: [] }], entry);
      else if (path === '/metrics') assert.deepEqual(op.security, [{ adminToken: [] }, { metricsToken: [] }], entry);
      else if (path === '/mcp') assert.deepEqual(op.security, [{ adminToken: [] }, { instanceKey: [] }], entry);
      else if (path.startsWith('/{version}/')) assert.deepEqual(op.security, [{ instanceKey: [] }], entry);
      else assert.equal(op.security, undefined, entry);
    }
  });

  it('JSON success answers of the REST API carry status 200 in their schema (in every branch of a union)', () => {
    type Answer = { properties?: Record<string, { const?: number }>; required?: string[]; anyOf?: Answer[]; oneOf?: Answer[] };
    const carriesStatus = (schema: Answer): boolean => {
      const branches = schema.anyOf ?? schema.oneOf;
      if (branches) return branches.every(carriesStatus);
      return schema.properties?.status?.const === 200 && Boolean(schema.required?.includes('status'));
    };
    const offenders = t.server.routes.filter((route) => {
      const schema = doc.paths[route.path]![route.method]!.responses['200']!.content!['application/json']?.schema as Answer | undefined;
      const plain = 'text' in route.response || 'binary' in route.response;
      // Channel relays and the Cloud API surface answer their protocols' own shapes.
      return schema && !plain && !route.tag.startsWith('Channel: ') && !route.errorEnvelope && !carriesStatus(schema);
    }).map((route) => `${route.method.toUpperCase()} ${route.path}`);
    assert.deepEqual(offenders, []);
  });

  it('declares path parameters exactly, query parameters from the route schema, and a requestBody exactly for routes with bodies', () => {
    for (const route of t.server.routes) {
      const entry = `${route.method.toUpperCase()} ${route.path}`;
      const op = doc.paths[route.path]![route.method]!;
      const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const pathParams = op.parameters.filter((p) => p.in === 'path');
      assert.deepEqual(pathParams.map((p) => p.name), names, `${entry}: path parameters`);
      assert.ok(pathParams.every((p) => p.required === true), entry);
      const queryNames = Object.keys(((route.query as { properties?: object } | undefined)?.properties) ?? {});
      assert.deepEqual(op.parameters.filter((p) => p.in === 'query').map((p) => p.name), queryNames, `${entry}: query parameters`);
      if (route.body) {
        assert.ok(op.requestBody, `${entry}: requestBody`);
        assert.deepEqual(op.requestBody!.content['application/json']!.schema, JSON.parse(JSON.stringify(route.body)), entry);
        assert.equal(op.requestBody!.required, Boolean((route.body.required as string[] | undefined)?.length), entry);
      } else {
        assert.equal(op.requestBody, undefined, `${entry}: no body, no requestBody`);
      }
    }
  });

  it('every schema in the document is valid JSON Schema 2020-12 and uses no OpenAPI 3.0 keywords', () => {
    const ajv = schemaCompiler();
    ajv.addSchema({ $id: 'parley-components', ...doc.components, $defs: doc.components.schemas });
    const text = JSON.stringify(doc);
    assert.doesNotMatch(text, /"nullable":/, 'OpenAPI 3.1 expresses null with anyOf/type, not nullable');
    for (const entry of documented(doc)) {
      const [method, path] = entry.split(' ') as [string, string];
      const op = doc.paths[path]![method.toLowerCase()]!;
      const schemas = [
        ...op.parameters.map((p) => p.schema),
        ...Object.values(op.requestBody?.content ?? {}).map((m) => m.schema),
        ...Object.values(op.responses['200']?.content ?? {}).map((m) => m.schema),
      ];
      for (const schema of schemas) {
        assert.doesNotThrow(() => ajv.compile(schema as object), `${entry}: ${JSON.stringify(schema).slice(0, 200)}`);
      }
    }
    assert.doesNotThrow(() => ajv.compile(doc.components.schemas.Error));
  });

  it('real answers match their documented 200 schemas', async () => {
    const ajv = schemaCompiler();
    const check = async (operationId: string, method: string, path: string, body?: unknown, admin = false): Promise<any> => {
      const res = admin ? await t.admin(method, path, body) : await t.request(method, path, body);
      assert.equal(res.status, 200, `${operationId}: ${JSON.stringify(res.body)}`);
      const op = Object.values(doc.paths).flatMap((item) => Object.values(item)).find((o: Operation) => o.operationId === operationId) as Operation | undefined;
      assert.ok(op, operationId);
      const validate = ajv.compile(op.responses['200']!.content!['application/json']!.schema);
      assert.ok(validate(res.body), `${operationId}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(res.body)}`);
      return res.body;
    };
    await check('healthz', 'GET', '/healthz');
    await check('readyz', 'GET', '/readyz');
    const created = (await check('adminCreateInstance', 'POST', '/admin/instances', { channel: 'sandbox', name: 'doc', options: { number: '5511970000001' } }, true)).data;
    await check('adminListInstances', 'GET', '/admin/instances', undefined, true);
    await check('adminGetInstance', 'GET', `/admin/instances/${created.key}`, undefined, true);
    await check('getInstance', 'GET', `/${created.key}/instance`);
    await check('connectInstance', 'POST', `/${created.key}/instance`);
    await check('requestPairingCode', 'POST', `/${created.key}/instance/pairing-code`, { phoneNumber: '5511970000001' });
    await check('updateInstanceFlags', 'PATCH', `/${created.key}/instance?saveMedia=true`);
    await check('updateWebhookSettings', 'PUT', `/${created.key}/instance`, { webhookFormat: 'meta' });
    await check('setProxy', 'POST', `/${created.key}/instance/proxy`, { proxy: 'http://u:p@proxy.example.com:8080' });
    await check('webhookStatistics', 'GET', `/${created.key}/instance/webhook/statistics`);
    assert.equal((await t.request('POST', `/sandbox/${created.key}/scan`)).status, 200);
    await t.settle();
    await check('getInstance', 'GET', `/${created.key}/instance`);
    await check('connectInstance', 'POST', `/${created.key}/instance`);
    await check('setProfileName', 'PUT', `/${created.key}/instance/profile/name`, { name: 'Docs' });
    await check('setProfileStatus', 'PUT', `/${created.key}/instance/status`, { text: 'Documented' });
    await check('removeProfilePicture', 'DELETE', `/${created.key}/instance/profile/picture`);
    await check('resyncInstance', 'POST', `/${created.key}/instance/resync`);
    const peer = await t.connectedSandbox({ name: 'peer', number: '5511970000002' });
    await check('sendText', 'POST', `/${created.key}/message/text`, { to: '5511970000002', text: 'schema check' });
    await t.waitFor(async () => (await t.request('GET', `/${peer.key}/chat/5511970000001/messages`)).body.total === 1, 5000, 'delivery');
    await check('listChats', 'GET', `/${peer.key}/chat`);
    await check('listChatMessages', 'GET', `/${peer.key}/chat/5511970000001/messages?page=1&limit=5`);
    await check('restartInstance', 'POST', `/${created.key}/instance/restart`);
    await check('logoutInstance', 'DELETE', `/${created.key}/instance`);
    await check('adminDeleteInstance', 'DELETE', `/admin/instances/${created.key}`, undefined, true);
  });
});

describe('/docs', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.stop();
  });

  it('answers an offline Swagger UI page whose every asset is served', async () => {
    const page = await t.request('GET', '/docs');
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = page.body as string;
    assert.match(html, /^<!doctype html>/);
    assert.ok(html.includes('<script src="/docs/assets/swagger-ui-bundle.js"></script>'));
    assert.doesNotMatch(html, /https?:\/\//, 'no external requests');
    const assets = [...html.matchAll(/<(?:link [^>]*href|script [^>]*src)="([^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(assets, ['/docs/assets/swagger-ui.css', '/docs/guides.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js']);
    const types: Record<string, RegExp> = { css: /^text\/css/, js: /^(application|text)\/javascript/ };
    for (const asset of assets) {
      const res = await t.request('GET', asset);
      assert.equal(res.status, 200, asset);
      assert.match(res.headers.get('content-type') ?? '', types[asset.split('.').pop()!]!, asset);
      assert.ok(res.raw.length > 50, asset);
    }
    const bundle = await t.request('GET', '/docs/assets/swagger-ui-bundle.js');
    assert.ok(bundle.raw.length > 100_000);
    assert.ok(bundle.raw.toString('utf8').includes('SwaggerUIBundle'));
    const init = await t.request('GET', '/docs/init.js');
    assert.equal(init.body, "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n");
  });
});
