import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PLUGINS, importPlugin } from '../src/index.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const manifest = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string> };
const repositoryPlugins = readdirSync(join(root, 'plugins')).map((dir) => manifest(join('plugins', dir)).name).sort();

describe('@parley/distribution', () => {
  it('is what depends on the plugins: @parley/server depends on none', () => {
    const server = Object.keys(manifest('packages/server').dependencies ?? {});
    assert.deepEqual(server.filter((name) => repositoryPlugins.includes(name)), []);
    const own = Object.keys(manifest('packages/distribution').dependencies ?? {});
    assert.deepEqual(repositoryPlugins.filter((name) => !own.includes(name)), [], 'every plugin of the repository can be configured');
  });

  it('loads every default plugin by its package name', async () => {
    assert.deepEqual(DEFAULT_PLUGINS.map((p) => p.package), [
      '@parley/storage-sqlite', '@parley/webhook-native', '@parley/webhook-meta', '@parley/channel-baileys', '@parley/channel-sandbox',
      '@parley/channel-instagram', '@parley/channel-messenger', '@parley/storage-mongodb/external',
    ]);
    for (const entry of DEFAULT_PLUGINS) {
      const mod = (await importPlugin(entry.package)) as { default?: { name?: unknown; register?: unknown } };
      assert.equal(typeof mod.default?.register, 'function', `${entry.package} has a plugin manifest`);
    }
  });

  it('lists its defaults in the README as they are', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const json = /The default plugin list of `@parley\/distribution` \(what `npm start` runs\) is:\n\n```json\n([\s\S]*?)\n```/.exec(readme)?.[1];
    assert.ok(json, 'the default list is in the README');
    assert.deepEqual((JSON.parse(json) as { plugins: unknown }).plugins, DEFAULT_PLUGINS);
  });
});
