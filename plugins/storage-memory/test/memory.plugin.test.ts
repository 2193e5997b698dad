import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { registerPlugin } from '@parley/testkit';
import plugin, { MemoryStorage } from '../src/index.js';

describe('@parley/storage-memory manifest', () => {
  it('declares a storage plugin without options', () => {
    assert.equal(plugin.name, '@parley/storage-memory');
    assert.equal(plugin.kind, 'storage');
    assert.equal(plugin.coreVersion, '^0.1.0');
    assert.deepEqual(plugin.optionsSchema, { type: 'object', additionalProperties: false, properties: {} });
  });

  it('declares and sets one MemoryStorage as the storage back end', async () => {
    assert.deepEqual(plugin.provides, { storage: true });
    const registered = await registerPlugin(plugin, {});
    const storage = registered.storage;
    assert.ok(storage instanceof MemoryStorage);
    assert.deepEqual([registered.channels, registered.formats, registered.connectors], [[], [], []]);
    assert.equal(storage.name, 'memory');
  });
});
