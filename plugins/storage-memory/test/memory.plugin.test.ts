import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Tokens } from '@parley/core';
import { registerPlugin } from '@parley/testkit';
import plugin, { MemoryStorage } from '../src/index.js';

describe('@parley/storage-memory manifest', () => {
  it('declares a storage plugin without options', () => {
    assert.equal(plugin.name, '@parley/storage-memory');
    assert.equal(plugin.kind, 'storage');
    assert.equal(plugin.coreVersion, '^0.1.0');
    assert.deepEqual(plugin.optionsSchema, { type: 'object', additionalProperties: false, properties: {} });
  });

  it('registers one MemoryStorage under Tokens.Storage', async () => {
    const child = await registerPlugin(plugin, {});
    const storage = child.resolve(Tokens.Storage);
    assert.ok(storage instanceof MemoryStorage);
    assert.equal(child.resolve(Tokens.Storage), storage);
    assert.equal(storage.name, 'memory');
  });
});
