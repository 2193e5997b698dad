import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// @parley/core first: it loads the reflect polyfill tsyringe needs.
import { Tokens, type Logger } from '@parley/core';
import { container } from 'tsyringe';
import plugin, { MemoryStorage } from '../src/index.js';

const silent: Logger = { child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

describe('@parley/storage-memory manifest', () => {
  it('declares a storage plugin without options', () => {
    assert.equal(plugin.name, '@parley/storage-memory');
    assert.equal(plugin.kind, 'storage');
    assert.equal(plugin.coreVersion, '^0.1.0');
    assert.deepEqual(plugin.optionsSchema, { type: 'object', additionalProperties: false, properties: {} });
  });

  it('registers one MemoryStorage under Tokens.Storage', async () => {
    const child = container.createChildContainer();
    await plugin.register({ container: child, options: {}, logger: silent, host: { dataDir: '/nonexistent', publicUrl: 'http://127.0.0.1:1', allowPrivateUrls: false } });
    const storage = child.resolve(Tokens.Storage);
    assert.ok(storage instanceof MemoryStorage);
    assert.equal(child.resolve(Tokens.Storage), storage);
    assert.equal(storage.name, 'memory');
  });
});
