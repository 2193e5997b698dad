import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { channelDirectory, systemClock, Tokens, type HostSettings, type HostToken } from '@parley/core';
import { container as rootContainer } from 'tsyringe';
import type { PluginEntry } from '../src/config/config.js';
import { HostContainer, HostResolutionError } from '../src/plugins/host-container.js';
import { loadPlugins, PluginError, type LoadedPlugins } from '../src/plugins/plugin-host.js';
import { received as consumerReceived } from './fixtures/deps-consumer.plugin.js';
import { received as subscriberReceived } from './fixtures/deps-subscriber.plugin.js';
import { silentLogger } from './support.js';

const here = dirname(fileURLToPath(import.meta.url));
const host: HostSettings = { dataDir: '/tmp/parley-plugin-deps-test', publicUrl: 'http://localhost:8080', allowPrivateUrls: false };
const fixture = (name: string): PluginEntry => ({ package: `./fixtures/${name}.plugin.js` });
const memory: PluginEntry = { package: '@parley/storage-memory' };
const sandbox: PluginEntry = { package: '@parley/channel-sandbox' };

/** A container as the server sets it up: the channel directory a composed service of what the plugins registered. */
function serverLikeContainer(): { services: HostContainer; loaded: { plugins?: LoadedPlugins } } {
  const services = new HostContainer(rootContainer.createChildContainer());
  const loaded: { plugins?: LoadedPlugins } = {};
  services.factory(Tokens.Channels, () => channelDirectory(loaded.plugins!.drivers.values()), { composed: true });
  return { services, loaded };
}

function load(entries: PluginEntry[], services = serverLikeContainer().services) {
  return loadPlugins(entries, { container: services, logger: silentLogger(), host, clock: systemClock, baseDir: here });
}

async function refused(entries: PluginEntry[], message: string): Promise<void> {
  await assert.rejects(load(entries), (err: unknown) => {
    assert.ok(err instanceof PluginError, `expected a PluginError, got ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  });
}

describe('plugin deps: host services resolved by token', () => {
  it('a plugin configured before the storage plugin registers after it and receives the storage, the clock, the settings and its own logger', async () => {
    const { services } = serverLikeContainer();
    const loaded = await load([fixture('deps-consumer'), memory], services);
    assert.equal(consumerReceived.storage, loaded.storage, 'the storage the storage plugin set');
    assert.equal(services.resolve(Tokens.Storage), loaded.storage, 'registered in the container');
    assert.equal(consumerReceived.clock, systemClock);
    assert.equal(consumerReceived.settings, host);
    assert.equal(typeof consumerReceived.logger?.info, 'function');
    assert.deepEqual(loaded.manifests.map((m) => m.name), ['@fixture/deps-consumer', '@parley/storage-memory'], 'listed in configuration order');
    assert.deepEqual(loaded.formats.get('deps-echo')!.render({ type: 'qrcode' } as never, {} as never), { storage: 'memory', type: 'qrcode' });
  });

  it('a plugin needing a composed service registers at registerComposed, once, with it resolved; its subscriber is collected', async () => {
    const { services, loaded: holder } = serverLikeContainer();
    const loaded = await load([memory, sandbox, fixture('deps-subscriber')], services);
    holder.plugins = loaded;
    assert.equal(loaded.subscribers.size, 0, 'not registered before the server is composed');
    await Promise.all([loaded.registerComposed(), loaded.registerComposed()]);
    assert.deepEqual([...loaded.subscribers.keys()], ['tally']);
    assert.deepEqual(subscriberReceived.channels?.mainChannels, ['whatsapp'], 'the directory of the registered drivers');
    assert.equal(subscriberReceived.channels, services.resolve(Tokens.Channels), 'built once');
  });

  it('a subscriber registered under another name than declared refuses the boot naming the plugin', async () => {
    const { services, loaded: holder } = serverLikeContainer();
    const loaded = await load([memory, { ...fixture('deps-subscriber'), options: { name: 'other' } }], services);
    holder.plugins = loaded;
    await assert.rejects(loaded.registerComposed(), new PluginError('plugin @fixture/deps-subscriber: registered the event subscriber "other" without declaring it in provides.subscribers'));
  });
});

describe('plugin deps: unknown tokens and cycles refuse the boot, naming the plugin', () => {
  it('a token the server does not provide', async () => {
    await refused([memory, fixture('deps-unknown')], 'plugin @fixture/deps-unknown: deps.crm needs parley.core.CrmBridge, which this server does not provide');
  });

  it('a storage plugin needing the storage', async () => {
    await refused([fixture('deps-storage-cycle')],
      'plugin @fixture/deps-storage-cycle: dependency cycle: deps.storage needs parley.core.Storage, the storage back end this plugin provides');
  });

  it('a channel plugin needing the send path, which is built from every channel', async () => {
    const { services } = serverLikeContainer();
    services.factory(Tokens.Sends, () => ({ text: async () => { throw new Error('unused'); } }), { composed: true });
    await assert.rejects(load([memory, fixture('deps-sends-channel')], services), new PluginError(
      'plugin @fixture/deps-sends-channel: dependency cycle: deps.sends needs parley.core.Sends, which the server builds from every plugin\'s channels, '
      + 'formats, storage, connectors and sinks, this plugin\'s channels among them; a plugin needing it may provide only event subscribers'));
  });

  it('host services needing each other name the chain', () => {
    const services = new HostContainer(rootContainer.createChildContainer());
    const a = Symbol.for('parley.test.A') as HostToken<number>;
    const b = Symbol.for('parley.test.B') as HostToken<number>;
    services.factory(a, (c) => c.resolve(b) + 1);
    services.factory(b, (c) => c.resolve(a) + 1);
    assert.throws(() => services.resolve(a), new HostResolutionError('host services need each other: parley.test.A → parley.test.B → parley.test.A'));
    assert.throws(() => services.resolve(Symbol.for('parley.test.C') as HostToken<number>), new HostResolutionError('no host service is registered as "parley.test.C"'));
  });
});
