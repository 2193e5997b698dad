import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Logger } from '@parley/core';
import { registerPlugin } from '@parley/testkit';
import plugin, { SCHEMA_VERSION, SqliteStorage } from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'parley-sqlite-plugin-'));
after(() => rmSync(root, { recursive: true, force: true }));

const logged: { bindings: Record<string, unknown>; obj: unknown; msg?: string }[] = [];
function logger(bindings: Record<string, unknown> = {}): Logger {
  const record = (obj: unknown, msg?: string) => void logged.push({ bindings, obj, ...(msg === undefined ? {} : { msg }) });
  return { child: (more) => logger({ ...bindings, ...more }), trace: record, debug: record, info: record, warn: record, error: record, fatal: record };
}

async function register(options: { path?: string; backgroundCheckpoints?: boolean }, dataDir: string): Promise<SqliteStorage> {
  const registered = await registerPlugin(plugin, options, { logger: logger(), host: { dataDir } });
  const storage = registered.storage;
  assert.ok(storage instanceof SqliteStorage);
  assert.deepEqual(plugin.provides, { storage: true });
  return storage;
}

describe('@parley/storage-sqlite manifest', () => {
  it('declares a storage plugin with the options path, backgroundCheckpoints and integrityCheck', () => {
    assert.equal(plugin.name, '@parley/storage-sqlite');
    assert.equal(plugin.kind, 'storage');
    assert.equal(plugin.coreVersion, '^0.1.0');
    assert.deepEqual(plugin.optionsSchema, {
      type: 'object', additionalProperties: false,
      properties: { path: { type: 'string', minLength: 1 }, backgroundCheckpoints: { type: 'boolean' }, integrityCheck: { type: 'boolean' } },
    });
  });

  it('defaults to <dataDir>/parley.db, creates the directory on init and logs the open', async () => {
    const dataDir = join(root, 'data', 'dir');
    const storage = await register({}, dataDir);
    assert.equal(storage.file, join(dataDir, 'parley.db'));
    assert.equal(existsSync(dataDir), false, 'register starts no I/O');
    logged.length = 0;
    await storage.init();
    assert.equal(existsSync(join(dataDir, 'parley.db')), true);
    assert.deepEqual(logged, [{ bindings: { storage: 'sqlite' }, obj: { file: storage.file, schemaVersion: SCHEMA_VERSION }, msg: 'sqlite storage open' }]);
    await storage.close();
  });

  it('uses options.path when given', async () => {
    const file = join(root, 'custom', 'gateway.sqlite');
    const storage = await register({ path: file }, join(root, 'unused'));
    assert.equal(storage.file, file);
    await storage.init();
    assert.equal((await storage.health()).ready, true);
    await storage.close();
    assert.equal(existsSync(file), true);
    assert.equal(existsSync(join(root, 'unused')), false);
  });

  it('checkpoints in the background unless options.backgroundCheckpoints is false', async () => {
    assert.equal((await register({}, join(root, 'bg-default'))).backgroundCheckpoints, true);
    assert.equal((await register({ backgroundCheckpoints: false }, join(root, 'bg-off'))).backgroundCheckpoints, false);
  });
});
