import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { PluginEntry } from '@parley/server';
import { deleteKeys } from '@parley/storage-redis/testing';
import { serviceUrlOrSkip } from '@parley/testkit';
import { freePort } from '@parley/testkit/host';
import { docNames, guideNames, readGuide, type Guide } from '../support/doc-examples.js';
import { runGuide } from '../support/doc-runner.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The config a guide's `<!-- server: NAME -->` file gives; the harness keeps its own listener, storage and plugins. */
function serverConfig(guide: Guide): Record<string, unknown> {
  if (!guide.serverConfig) return {};
  const file = guide.steps.find((s) => s.kind === 'file' && s.name === guide.serverConfig);
  assert.ok(file?.kind === 'file', `${guide.name}.md names the server config ${guide.serverConfig}, which no file block gives`);
  const { plugins: _plugins, port: _port, host: _host, dataDir: _dataDir, ...config } = JSON.parse(file.code) as Record<string, unknown>;
  return config;
}

/** The plugins of examples/config.whatsapp-sim.json, for a page whose examples run on the WhatsApp simulator. */
function examplePlugins(guide: Guide): PluginEntry[] | undefined {
  if (guide.setup !== 'whatsapp-simulator') return undefined;
  const config = JSON.parse(readFileSync(fileURLToPath(new URL('../../../examples/config.whatsapp-sim.json', import.meta.url)), 'utf8')) as { plugins: PluginEntry[] };
  return config.plugins;
}

/** Keys of the instances a page's `<!-- setup: alice-and-bob -->` asks for. */
async function setUp(guide: Guide, server: TestServer): Promise<Record<string, string>> {
  if (guide.setup !== 'alice-and-bob') return {};
  const alice = await server.connectedSandbox({ name: 'alice', number: '5511900000001' });
  const bob = await server.connectedSandbox({ name: 'bob', number: '5511900000002' });
  return { A: alice.key, C: bob.key };
}

/**
 * Every example of docs/guides (and of the reference pages that have runnable ones) runs here, as a reader would run it: the guide's shell blocks in order
 * against a real server (sandbox instances, real HTTP), its scripts saved and run with node, and the
 * output each guide shows checked against what the blocks print. Blocks that cannot run here say why.
 */
describe('docs/guides: every example runs', { concurrency: 2 }, () => {
  const names = docNames();
  const redisUrl = names.some((n) => readGuide(n).redisPrefix) ? serviceUrlOrSkip('REDIS_URL', 'docs/guides that keep data in Redis') : undefined;

  it('the guides exist and every page keeps the convention', () => {
    assert.ok(guideNames().length >= 7, `guides found: ${guideNames().join(', ')}`);
    for (const name of names) assert.deepEqual(readGuide(name).problems, [], name);
    for (const name of guideNames()) assert.ok(readGuide(`guides/${name}`).steps.some((s) => s.kind === 'run'), `guides/${name}.md runs no example`);
  });

  for (const name of names) {
    const guide = readGuide(name);
    if ((guide.redisPrefix && !redisUrl) || !guide.steps.some((s) => s.kind === 'run')) continue;
    it(`${name}.md`, async () => {
      const redis = guide.redisPrefix ? { REDIS_URL: redisUrl!, prefix: guide.redisPrefix } : undefined;
      if (redis) await deleteKeys(redis.REDIS_URL, redis.prefix);
      const plugins = examplePlugins(guide);
      const server = await startTestServer({ storage: 'sqlite', config: serverConfig(guide), ...(plugins ? { plugins } : {}) });
      try {
        const results = await runGuide(guide, {
          ...await setUp(guide, server),
          B: server.url, T: server.adminToken, RECEIVER_PORT: String(await freePort()),
          PORTS: (await Promise.all([freePort(), freePort(), freePort()])).join(' '),
          ...(redis ? { REDIS_URL: redis.REDIS_URL } : {}),
        });
        assert.equal(results.length, guide.steps.filter((s) => s.kind === 'run').length);
      } finally {
        await server.stop();
        if (redis) await deleteKeys(redis.REDIS_URL, redis.prefix);
      }
    });
  }
});
