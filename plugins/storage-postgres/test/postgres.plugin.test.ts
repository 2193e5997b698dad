import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { ServiceUnavailableError } from '@parley/core';
import { assertStorageManifest, registerPlugin } from '@parley/testkit';
import plugin, { PostgresStorage, postgresOptionsSchema, resolvePostgresOptions } from '../src/index.js';

describe('@parley/storage-postgres plugin manifest', () => {
  it('declares a storage plugin with a closed options schema', () => {
    assert.equal(plugin.optionsSchema, postgresOptionsSchema);
    assertStorageManifest(plugin, '@parley/storage-postgres', ['commandTimeoutMs', 'groupCommit', 'messageRetentionDays', 'poolSize', 'schema', 'synchronousCommit', 'url']);
  });

  it('registers a PostgresStorage as the storage back end without connecting', async () => {
    const storage = (await registerPlugin(plugin, { url: 'postgres://127.0.0.1:1/parley' })).storage!;
    assert.ok(storage instanceof PostgresStorage);
    assert.equal(storage.name, 'postgres');
    assert.deepEqual(await storage.health(), { ready: false, detail: 'not connected' });
    await assert.rejects(storage.instances.get('ins_x'), ServiceUnavailableError);
    await storage.close();
  });

  it('takes a postgres URL, a lower-case schema name and a pool of 1 to 100 (the host validates options with ajv, strict)', () => {
    const validate = new Ajv({ strict: true }).compile(postgresOptionsSchema);
    for (const options of [{}, { url: 'postgresql://u:p@db:5433/app?sslmode=require', schema: 'parley_2', poolSize: 100, synchronousCommit: 'off', groupCommit: true }]) {
      assert.ok(validate(options), JSON.stringify(options));
    }
    // The schema name is put into SQL between double quotes: only names that need no escaping are accepted.
    for (const options of [{ url: 'mysql://127.0.0.1/parley' }, { schema: 'Parley' }, { schema: 'a"; DROP SCHEMA public; --' }, { poolSize: 0 }, { poolSize: 101 }, { synchronousCommit: 'local' }, { groupCommit: 'yes' }, { database: 'x' }]) {
      assert.equal(validate(options), false, JSON.stringify(options));
    }
  });

  it('fails init with ServiceUnavailableError when PostgreSQL is unreachable, without the password', async () => {
    // Port 1 on loopback refuses connections: no PostgreSQL needed.
    const storage = new PostgresStorage({ url: 'postgres://parley:s3cret-pass@127.0.0.1:1/parley', commandTimeoutMs: 1_000 });
    await assert.rejects(storage.init(), (err: unknown) => {
      assert.ok(err instanceof ServiceUnavailableError);
      assert.equal(err.status, 503);
      assert.match(err.message, /^cannot connect to the postgres storage at postgres:\/\/\*\*\*@127\.0\.0\.1:1\/parley: /);
      assert.doesNotMatch(err.message, /s3cret-pass/);
      return true;
    });
    assert.deepEqual(await storage.health(), { ready: false, detail: 'not connected' });
    await storage.close();
  });

  it('applies defaults: DATABASE_URL, then the local server; schema public; a pool of 10; synchronous commits; history kept forever', () => {
    assert.deepEqual(resolvePostgresOptions({}, {}), {
      url: 'postgres://postgres@127.0.0.1:5432/postgres', schema: 'public', poolSize: 10, synchronousCommit: 'on', groupCommit: false, messageRetentionDays: 0, commandTimeoutMs: 5000,
    });
    assert.equal(resolvePostgresOptions({}, { DATABASE_URL: 'postgresql://db:5433/app' }).url, 'postgresql://db:5433/app');
    assert.equal(resolvePostgresOptions({ url: 'postgres://other/db' }, { DATABASE_URL: 'postgresql://db:5433/app' }).url, 'postgres://other/db');
  });
});
