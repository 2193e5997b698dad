import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { createRegistrar, PluginRegistrationError, recordStoreOf, systemClock, Tokens, type PluginProvides, type Storage } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { container as rootContainer } from 'tsyringe';
import type { PluginEntry } from '../src/config/config.js';
import { loadPlugins, PluginError } from '../src/plugins/plugin-host.js';
import { received as consumerReceived } from './fixtures/deps-consumer.plugin.js';
import { MapMediaStore } from './fixtures/memory-media.plugin.js';
import { outboxSet } from './fixtures/memory-outbox.plugin.js';
import { recordsSet } from './fixtures/memory-records.plugin.js';
import { silentLogger } from './support.js';

const here = dirname(fileURLToPath(import.meta.url));
const host = { dataDir: '/tmp/parley-plugin-host-halves-test', publicUrl: 'http://localhost:8080', allowPrivateUrls: false };
const fixture = (name: string): PluginEntry => ({ package: `./fixtures/${name}.plugin.js` });
const memory: PluginEntry = { package: '@parley/storage-memory' };
const sandbox: PluginEntry = { package: '@parley/channel-sandbox' };

function load(entries: PluginEntry[], container = rootContainer.createChildContainer()) {
  return loadPlugins(entries, { container, logger: silentLogger(), host, clock: systemClock, baseDir: here });
}

async function refused(entries: PluginEntry[], message: string): Promise<void> {
  await assert.rejects(load(entries), (err: unknown) => {
    assert.ok(err instanceof PluginError, `expected a PluginError, got ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  });
}

describe('plugin host: a record store and an outbox from two plugins', () => {
  it('one plugin providing both: the storage is its very back end', async () => {
    const loaded = await load([memory, sandbox]);
    assert.ok(loaded.storage instanceof MemoryStorage);
  });

  it('composes the halves, whatever their order, with plugins needing the storage registered after both', async () => {
    for (const order of [['memory-records', 'memory-outbox'], ['memory-outbox', 'memory-records']]) {
      const container = rootContainer.createChildContainer();
      const loaded = await load([fixture('deps-consumer'), ...order.map(fixture), sandbox], container);
      const records = recordsSet.storage!;
      const outbox = outboxSet.storage!;
      assert.notEqual(records, outbox);
      assert.equal(loaded.storage.messages, records.messages);
      assert.equal(loaded.storage.authState, records.authState);
      assert.equal(loaded.storage.deliveries, outbox.deliveries);
      assert.equal(loaded.storage.idempotency, outbox.idempotency);
      assert.equal(loaded.storage.name, 'memory+memory');
      assert.equal(container.resolve<Storage>(Tokens.Storage), loaded.storage);
      assert.equal(consumerReceived.storage, loaded.storage, 'a plugin needing the storage gets the composed one');
      await loaded.storage.init();
      assert.deepEqual(await loaded.storage.health(), { ready: true });
      await loaded.storage.close();
      assert.deepEqual(await records.health(), { ready: false, detail: 'closed' });
      assert.deepEqual(await outbox.health(), { ready: false, detail: 'closed' });
    }
  });

  it('a media store replaces the record store\'s media', async () => {
    const loaded = await load([fixture('memory-records'), fixture('memory-media'), fixture('memory-outbox')]);
    assert.ok(loaded.storage.media instanceof MapMediaStore);
    assert.equal(loaded.storage.messages, recordsSet.storage!.messages);
    assert.equal(loaded.storage.outbound, outboxSet.storage!.outbound);
  });

  it('refuses a boot with one half missing, naming it and the plugin that provides the other', async () => {
    await refused([fixture('memory-records'), sandbox],
      'no outbox configured: @fixture/memory-records provides the record store only; add a plugin providing the outbox (provides.outbox, or a storage back end providing both)');
    await refused([sandbox, fixture('memory-outbox')],
      'no record store configured: @fixture/memory-outbox provides the outbox only; add a plugin providing the record store (provides.records, or a storage back end providing both)');
  });

  it('refuses two providers of one half', async () => {
    await refused([memory, fixture('memory-records')], 'two record stores configured: @parley/storage-memory and @fixture/memory-records; keep exactly one');
    await refused([fixture('memory-outbox'), memory], 'two storage back ends configured: @fixture/memory-outbox and @parley/storage-memory; keep exactly one');
    await refused([fixture('memory-outbox'), fixture('memory-outbox'), fixture('memory-records')],
      'two outboxes configured: @fixture/memory-outbox and @fixture/memory-outbox; keep exactly one');
  });

  it('refuses an outbox plugin needing the storage it is part of', async () => {
    await refused([fixture('memory-records'), fixture('deps-outbox-cycle')],
      'plugin @fixture/deps-outbox-cycle: dependency cycle: deps.storage needs parley.core.Storage, composed of the outbox this plugin provides');
  });
});

describe('plugin registrar: the halves of storage', () => {
  const registrar = (provides: PluginProvides) => createRegistrar({ name: '@fixture/x', provides });
  const refusedWith = (run: () => unknown, message: string) => assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof PluginRegistrationError);
    assert.equal(err.message, `plugin @fixture/x: ${message}`);
    return true;
  });

  it('records.set and outbox.set need their own provides; storage.set needs storage or both halves', () => {
    const store = new MemoryStorage();
    refusedWith(() => registrar({ storage: true }).hooks.records.set(store), 'set a record store without declaring provides.records');
    refusedWith(() => registrar({ records: true }).hooks.outbox.set(store), 'set an outbox without declaring provides.outbox');
    refusedWith(() => registrar({ records: true }).hooks.storage.set(store),
      'set a storage back end without declaring provides.storage (or provides.records and provides.outbox)');
    const both = registrar({ records: true, outbox: true });
    both.hooks.storage.set(store);
    assert.deepEqual(both.finish(), { channels: [], formats: [], connectors: [], sinks: [], subscribers: [], storage: store, records: store, outbox: store });
  });

  it('refuses a half set twice, one without its repositories or lifecycle, and a declared half never set', () => {
    const records = registrar({ records: true });
    records.hooks.records.set(recordStoreOf(new MemoryStorage()));
    refusedWith(() => records.hooks.records.set(new MemoryStorage()), 'set the record store twice');
    const { messages: _messages, ...withoutMessages } = recordStoreOf(new MemoryStorage());
    refusedWith(() => registrar({ records: true }).hooks.records.set({ ...withoutMessages, flush: undefined } as never), 'set a record store without messages, flush()');
    refusedWith(() => registrar({ outbox: true }).hooks.outbox.set({ name: '' } as never),
      'set an outbox without a name, deliveries, outbound, events, idempotency, init(), health(), flush(), close()');
    refusedWith(() => registrar({ outbox: true }).finish(), 'declares provides.outbox but did not set an outbox');
  });
});
