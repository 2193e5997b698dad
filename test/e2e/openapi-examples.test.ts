import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { RouteDefinition } from '@parley/server';
import { EVERY_CHANNEL_PLUGINS, startTestServer, type TestServer } from '../support/test-server.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
type Body = { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> };
type Doc = { paths: Record<string, Record<string, { operationId: string; requestBody?: Body }>> };

/** The example of each operation with a JSON body, by operationId. */
function examples(doc: Doc): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      const json = op.requestBody?.content['application/json'];
      if (json) out.set(op.operationId, json.example);
    }
  }
  return out;
}

/** Issue 24, item 17: the OpenAPI document's request examples work as they are, for every operation. */
describe('OpenAPI request examples', () => {
  let t: TestServer;
  let doc: Doc;

  before(async () => {
    t = await startTestServer({ plugins: EVERY_CHANNEL_PLUGINS });
    doc = (await t.request('GET', '/openapi.json')).body;
  });
  after(() => t.stop());

  it('gives every operation with a JSON body an example its own schema and the route\'s validator accept', () => {
    // The settings of the server's own body validator (RequestValidator): strict, no coercion, formats checked.
    const ajv = addFormats(new Ajv({ allErrors: true, strict: true, coerceTypes: false }));
    const byId = examples(doc);
    const routes = t.server.routes.filter((r: RouteDefinition) => r.body);
    assert.ok(routes.length > 50, `${routes.length} routes with a body`);
    const refused: string[] = [];
    for (const route of routes) {
      assert.ok(byId.has(route.operationId), `${route.operationId} is documented with its body`);
      const example = byId.get(route.operationId);
      assert.notEqual(example, undefined, `${route.operationId} has an example`);
      const validate = ajv.compile(route.body!);
      if (!validate(example)) refused.push(`${route.operationId} ${JSON.stringify(example)}: ${ajv.errorsText(validate.errors)}`);
    }
    assert.deepEqual(refused, []);
  });

  it('sends sendText\'s example as it is: 200, and the message arrives', async () => {
    const alice = await t.connectedSandbox({ number: '5511999990000' });
    const bob = await t.connectedSandbox();
    const example = examples(doc).get('sendText') as { to: string; text: string };
    assert.deepEqual(Object.keys(example).sort(), ['text', 'to'], 'only what a send needs: no delay, sendAt or mentions of filler');
    const sent = await t.request('POST', `/${bob.key}/message/text`, example);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await t.waitFor(async () => (await t.client(alice.key).call('listChats')).data.length > 0, 5000, 'the message to arrive');
  });

  // Media sends are left out: their example URL names media the server must download, which a test
  // without internet cannot (their examples pass the validator above).
  it('answers no validation error for the example of any send of a message without media to download', async () => {
    await t.connectedSandbox({ number: '5511999990000' }).catch(() => undefined);
    const sender = await t.connectedSandbox();
    const failures: string[] = [];
    let sent = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/{key}/message/') || !item.post?.requestBody || path.includes('{messageId}')) continue;
      const example = item.post.requestBody.content['application/json']!.example as Record<string, unknown>;
      if ('url' in example || 'base64' in example) continue;
      const res = await t.request('POST', path.replace('{key}', sender.key), example);
      sent++;
      if (res.status === 400) failures.push(`${path}: ${JSON.stringify(res.body.error)}`);
    }
    assert.deepEqual(failures, []);
    assert.ok(sent >= 20, `${sent} sends tried`);
  });
});
