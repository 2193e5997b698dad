import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { undeclaredImports, type Manifest } from './source-imports.js';

const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const server = join(root, 'packages', 'server');

/**
 * Host machinery: what only the host process (the server, the webhook engine) runs. It lives in
 * `@parley/host`, never in the contracts a plugin author imports.
 */
const HOST_MACHINERY = [
  'ClaimPump', 'withBoundedRetry', 'fencedStorage', 'withMediaStore', 'composeStorage', 'guardedLookup', 'privateLiteralError', 'privateDir',
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('channel-neutral kernel (issue #27)', () => {
  it('@parley/server knows no channel\'s wire format: it depends neither on @parley/whatsapp-proto nor on sharp', () => {
    const manifest = JSON.parse(readFileSync(join(server, 'package.json'), 'utf8')) as Manifest;
    const runtime = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
    assert.deepEqual(runtime.filter((name) => name === '@parley/whatsapp-proto' || name === 'sharp'), []);
    // Were they declared, the server's sources could still import them: they must not, with or without a declaration.
    const imports = undeclaredImports(tsFiles(join(server, 'src')), { name: manifest.name, dependencies: {} })
      .filter((i) => /^(@parley\/whatsapp-proto|sharp)(\/|$)/.test(i.specifier))
      .map((i) => `${relative(root, i.file)}: ${i.specifier}`);
    assert.deepEqual(imports, []);
  });

  it('the server\'s sources never call toJid: addresses go through the channel\'s addressing', () => {
    const offending = tsFiles(join(server, 'src'))
      .filter((file) => /\btoJid\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    assert.deepEqual(offending, []);
  });

  it('host machinery stays out of plugins: only the server and the webhook engine depend on @parley/host', () => {
    const users = ['packages', 'plugins', 'examples'].flatMap((dir) => readdirSync(join(root, dir)).map((name) => join(root, dir, name)))
      .filter((dir) => {
        try {
          const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
          return Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).includes('@parley/host');
        } catch {
          return false;
        }
      })
      .map((dir) => relative(root, dir));
    assert.deepEqual(users.sort(), ['packages/server', 'packages/webhooks']);
  });

  it('@parley/core exports no host machinery: @parley/host does', async () => {
    const core = Object.keys(await import('@parley/core'));
    const host = Object.keys(await import('@parley/host'));
    assert.deepEqual(HOST_MACHINERY.filter((name) => core.includes(name)), []);
    assert.deepEqual(HOST_MACHINERY.filter((name) => !host.includes(name)), []);
  });
});
