import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceUnavailableError } from '@parley/core';
import { assertStorageManifest, registerPlugin } from '@parley/testkit';
import plugin, { MongoStorage, mongoOptionsSchema, resolveMongoOptions } from '../src/index.js';

describe('@parley/storage-mongodb plugin manifest', () => {
  it('declares a storage plugin with a closed options schema', () => {
    assert.equal(plugin.optionsSchema, mongoOptionsSchema);
    assertStorageManifest(plugin, '@parley/storage-mongodb', ['collectionPrefix', 'commandTimeoutMs', 'dbName', 'messageRetentionDays', 'url']);
  });

  it('registers a MongoStorage as the storage back end without connecting', async () => {
    const storage = (await registerPlugin(plugin, { url: 'mongodb://127.0.0.1:1' })).storage!;
    assert.ok(storage instanceof MongoStorage);
    assert.equal(storage.name, 'mongodb');
    assert.deepEqual(await storage.health(), { ready: false, detail: 'not connected' });
    await assert.rejects(storage.instances.get('ins_x'), ServiceUnavailableError);
    await storage.close();
  });

  it('fails init with ServiceUnavailableError when MongoDB is unreachable, without the password', async () => {
    const storage = new MongoStorage({ url: 'mongodb://parley:s3cret@127.0.0.1:1/?serverSelectionTimeoutMS=300', commandTimeoutMs: 2_000 });
    await assert.rejects(storage.init(), (err: unknown) => {
      assert.ok(err instanceof ServiceUnavailableError);
      assert.match(err.message, /^cannot connect to the mongodb storage at mongodb:\/\/\*\*\*@127\.0\.0\.1:1\//);
      assert.doesNotMatch(err.message, /s3cret/);
      return true;
    });
    await storage.close();
  });

  it('applies defaults: MONGODB_URL, then the local server; database parley; history kept forever', () => {
    assert.deepEqual(resolveMongoOptions({}, {}), {
      url: 'mongodb://127.0.0.1:27017', dbName: 'parley', collectionPrefix: '', messageRetentionDays: 0, commandTimeoutMs: 5000,
    });
    assert.equal(resolveMongoOptions({}, { MONGODB_URL: 'mongodb://db:27018' }).url, 'mongodb://db:27018');
  });
});
