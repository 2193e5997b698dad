import assert from 'node:assert/strict';
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip } from '@parley/testkit';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.js';

type Operation = { parameters?: { name: string; in: string }[]; requestBody?: unknown; responses: Record<string, { content?: Record<string, unknown> }> };
type Doc = { paths: Record<string, Record<string, Operation>> };

/**
 * Names every JavaScript object inherits, each beside an unknown name of the same shape (so a pattern
 * treats both alike): a lookup of the first in an object used as a map finds something unless it
 * asks for own members only.
 */
const INHERITED: [string, string][] = [['constructor', 'nosuchthing'], ['__proto__', '__nosuch__'], ['toString', 'noSuchIt'], ['hasOwnProperty', 'noSuchPropName']];
const PHONE = '5511970000402';
/** Fillers for the path parameters not under test. */
const FILLERS: Record<string, string> = {
  jid: PHONE, number: PHONE, callFrom: PHONE, groupJid: '120363000000000001@g.us', communityId: '120363000000000002@g.us',
};

const storages = (['sqlite', 'redis'] as const).filter((storage) => storage !== 'redis' || serviceUrlOrSkip('REDIS_URL', 'inherited names on Redis storage'));

for (const storage of storages) {
  describe(`names every object inherits are unknown names (${storage} storage)`, () => {
    let t: TestServer;
    let doc: Doc;
    let key: string;

    before(async () => {
      // Unknown keys count as failed authentications: far more of them here than the default limit allows.
      t = await startTestServer({ storage, config: { rateLimit: { failures: 100_000, windowSeconds: 60, blockSeconds: 60 } } });
      doc = (await t.request('GET', '/openapi.json')).body as Doc;
      key = (await t.connectedSandbox({ name: 'names', number: '5511970000401' })).key;
    });
    after(() => t.stop());

    const send = (method: string, template: string, path: string, body?: unknown): Promise<TestResponse> =>
      template.startsWith('/admin/') ? t.admin(method, path, body) : t.request(method, path, body);
    const outcome = (res: TestResponse) => `${res.status} ${res.body?.error?.code ?? ''}`;

    it('every string path parameter of every operation, the instance key included, answers constructor, __proto__, toString and hasOwnProperty as an unknown name', async () => {
      const differences: string[] = [];
      let compared = 0;
      for (const [template, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          if ('text/event-stream' in (op.responses['200']?.content ?? {})) continue;
          for (const param of (op.parameters ?? []).filter((p) => p.in === 'path')) {
            const at = (value: string) => template.replace(/\{([^}]+)\}/g, (_, name: string) =>
              encodeURIComponent(name === param.name ? value : name === 'key' ? key : FILLERS[name] ?? 'probe'));
            for (const [inherited, unknown] of INHERITED) {
              const body = op.requestBody ? {} : undefined;
              const expected = await send(method.toUpperCase(), template, at(unknown), body);
              const actual = await send(method.toUpperCase(), template, at(inherited), body);
              compared++;
              if (outcome(actual) !== outcome(expected) || actual.status >= 500) {
                differences.push(`${method.toUpperCase()} ${at(inherited)}: ${outcome(actual)} where ${unknown} answers ${outcome(expected)}`);
              }
            }
          }
        }
      }
      assert.deepEqual(differences, []);
      assert.ok(compared > 100, `${compared} comparisons`);
    });

    it('DELETE /{key}/instance/links/constructor: 400 not linked, as any unknown channel, and the links stay empty', async () => {
      for (const [inherited] of INHERITED.filter(([name]) => /^[a-z][a-z0-9-]*$/.test(name))) {
        const res = await t.request('DELETE', `/${key}/instance/links/${inherited}`);
        assert.deepEqual([res.status, res.body.error?.code, res.body.error?.message], [400, 'validation_failed', `path.channel: ${inherited} is not linked`]);
      }
      assert.deepEqual((await t.request('GET', `/${key}/instance/links`)).body, { status: 200, data: {} });
    });

    it('DELETE /{key}/call/{callId}/{callFrom} with an inherited call id: 404 call_not_found', async () => {
      for (const [inherited] of INHERITED) {
        const res = await t.request('DELETE', `/${key}/call/${inherited}/${PHONE}`);
        assert.deepEqual([res.status, res.body.error?.code], [404, 'call_not_found'], inherited);
      }
    });
  });
}

describe('GET /sandbox/pictures/{id} with the id of another channel\'s instance', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-pictures-'));
  const plugins = { extraPlugins: [{ package: '@parley/channel-baileys', options: { logLevel: 'silent' } }], storage: 'sqlite' as const, dataDir };
  let t: TestServer;
  let whatsapp: string;

  before(async () => {
    const first = await startTestServer(plugins);
    whatsapp = (await first.createInstance({ channel: 'whatsapp', name: 'wa' })).id;
    await first.stop();
    t = await startTestServer(plugins);
  });
  after(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 404 instance_not_found, as for an unknown id, and does not load that instance', async () => {
    assert.ok(!t.server.context.registry.loaded().some((runtime) => runtime.record.id === whatsapp), 'not loaded after the restart');
    const unknown = await t.request('GET', '/sandbox/pictures/ins_00000000000000000000000000');
    const other = await t.request('GET', `/sandbox/pictures/${whatsapp}`);
    assert.deepEqual([other.status, other.body], [unknown.status, unknown.body]);
    assert.deepEqual([other.status, other.body.error.code], [404, 'instance_not_found']);
    assert.ok(!t.server.context.registry.loaded().some((runtime) => runtime.record.id === whatsapp), 'still not loaded');
  });
});
