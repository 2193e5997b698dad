import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamError, ValidationError } from '@parley/core';
import { connectExternalDatabase, validateMongoUri } from '../src/index.js';

function assertValidation(field: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ValidationError, `expected ValidationError, got ${String(err)}`);
    assert.equal(err.status, 400);
    assert.match(err.message, new RegExp(`^${field.replace(".", "\\.")} `));
    assert.deepEqual(err.details, { field, fields: [{ field, message: err.message }] });
    return true;
  };
}

describe('@parley/storage-mongodb connectExternalDatabase', () => {
  it('refuses a malformed or non-MongoDB uri with a ValidationError naming body.uri', async () => {
    for (const uri of ['', 'not a uri', 'http://127.0.0.1:27017/db', 'mongodb://', 'mongodb+srv://host:27017/db', 'mongodb://h:99999999/db', 42]) {
      await assert.rejects(connectExternalDatabase({ uri: uri as string, dbName: 'parley' }), assertValidation('body.uri'), `uri ${String(uri)}`);
    }
  });

  it('refuses an invalid dbName with a ValidationError naming body.dbName', async () => {
    for (const dbName of ['', 'a/b', 'with space', 'dot.ted', 'x'.repeat(64)]) {
      await assert.rejects(connectExternalDatabase({ uri: 'mongodb://127.0.0.1:1/', dbName }), assertValidation('body.dbName'), `dbName ${dbName}`);
    }
  });

  it('reports an unreachable database with a clear error that never shows the password', async () => {
    const uri = 'mongodb://parley:pa55-w0rd-secret@127.0.0.1:1/?serverSelectionTimeoutMS=500';
    await assert.rejects(connectExternalDatabase({ uri, dbName: 'parley' }, { allowPrivate: true }), (err: unknown) => {
      assert.ok(err instanceof UpstreamError, `expected UpstreamError, got ${String(err)}`);
      assert.equal(err.status, 502);
      assert.match(err.message, /^cannot connect to the external database at mongodb:\/\/\*\*\*@127\.0\.0\.1:1\/\?serverSelectionTimeoutMS=500: /);
      assert.doesNotMatch(err.message, /pa55-w0rd-secret/);
      assert.doesNotMatch(JSON.stringify(err.details), /pa55-w0rd-secret/);
      assert.deepEqual(err.details, { retryable: true });
      return true;
    });
  });

  it('accepts mongodb:// and mongodb+srv:// connection strings as they are', () => {
    for (const uri of ['mongodb://127.0.0.1:27017', 'mongodb://u:p@h1:1,h2:2/db?replicaSet=rs0', 'mongodb+srv://u:p@cluster0.example.net/db']) {
      assert.equal(validateMongoUri(uri), uri);
    }
  });
});
