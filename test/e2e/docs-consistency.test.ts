import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DOCS_DIR } from '../support/doc-examples.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { PARLEY_BIN } from '../support/parley-cli.js';

/**
 * Where the reference, the OpenAPI document and the CLI describe the same behaviour, they say the same
 * thing as the code: dead letters are listed oldest dead first (every storage back end orders them by
 * `deadAt`, then by queue order; the dead-letters guide shows it on a real server), and
 * `EventSource.onmessage` sees only frames named `message`.
 */
describe('docs, OpenAPI and CLI agree', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => t.stop());

  it('dead letters: oldest dead first, in the OpenAPI document, the CLI help and docs/webhooks.md', async () => {
    const openapi = (await t.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { summary: string }>> };
    for (const path of ['/{key}/instance/webhook/dead-letters', '/{key}/instance/sinks/{name}/dead-letters']) {
      assert.match(openapi.paths[path]!.get!.summary, /oldest dead first/, path);
      assert.doesNotMatch(openapi.paths[path]!.get!.summary, /newest/, path);
    }
    const help = execFileSync(process.execPath, [PARLEY_BIN, 'webhooks', '--help'], { encoding: 'utf8' });
    assert.match(help, /dead-letters .*oldest dead first/);
    const webhooks = readFileSync(join(DOCS_DIR, 'webhooks.md'), 'utf8');
    assert.match(webhooks, /Dead letters are listed per instance, oldest dead first/);
    for (const doc of ['webhooks.md', 'sinks.md', join('guides', 'dead-letters.md')]) {
      assert.doesNotMatch(readFileSync(join(DOCS_DIR, doc), 'utf8'), /dead[- ]letters?[^.]*newest first/i, doc);
    }
  });

  it('events.md does not promise that EventSource works as it is', () => {
    const events = readFileSync(join(DOCS_DIR, 'events.md'), 'utf8');
    assert.doesNotMatch(events, /EventSource[^.]*works as it is/);
    assert.match(events, /onmessage` receives only frames named `message`/);
  });
});
