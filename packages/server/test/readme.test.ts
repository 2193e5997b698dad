import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { configSchema } from '../src/config/config.schema.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const SKIP = new Set(['node_modules', 'dist', '.git', 'data', '.parley-data', 'coverage']);

/** Files under `dir` whose name ends with `suffix`, build output and dependencies left out. */
function files(dir: string, suffix: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files(path, suffix, out);
    else if (entry.name.endsWith(suffix) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The backticked names in the first column of the README table that follows `afterText`. */
function tableKeys(afterText: string): Set<string> {
  const at = readme.indexOf(afterText);
  assert.ok(at >= 0, `the README has a table after "${afterText}"`);
  const table = readme.slice(at).split('\n\n')[1]!;
  return new Set(table.split('\n').flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!)));
}

describe('README configuration', () => {
  it('lists every environment variable the server and its plugins read', () => {
    const listed = tableKeys('Environment variables (they override the config file):');
    const read = new Set<string>();
    for (const file of [...files(join(root, 'packages'), '.ts'), ...files(join(root, 'plugins'), '.ts')]) {
      // Test support (the testkit, meta-graph's live-test helper) reads variables only tests set; the README names them apart.
      const parts = relative(root, file).split('/');
      if (!parts.includes('src') || parts.includes('testing') || parts[1] === 'testkit') continue;
      for (const m of readFileSync(file, 'utf8').matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) read.add(m[1]!);
    }
    assert.ok(read.has('PARLEY_ALLOW_PRIVATE_URLS') && read.has('REDIS_URL'), [...read].join());
    assert.deepEqual([...read].filter((name) => !listed.has(name)), []);
  });

  it('lists every key of the config file', () => {
    const listed = tableKeys('schema (errors name the field); relative paths in it resolve against the file');
    const keys = Object.entries(configSchema.properties).flatMap(([key, schema]) =>
      key === 'plugins' || !('properties' in schema) ? [key] : Object.keys(schema.properties).map((sub) => `${key}.${sub}`));
    assert.deepEqual(keys.filter((key) => !listed.has(key)), []);
  });
});

describe('repository documentation', () => {
  it('links only files inside the repository, and they exist', () => {
    const broken: string[] = [];
    for (const file of files(root, '.md')) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (!target || /^[a-z]+:/i.test(target)) continue;
        const path = resolve(dirname(file), target);
        if (relative(root, path).startsWith('..') || !existsSync(path)) broken.push(`${relative(root, file)}: ${m[1]}`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
