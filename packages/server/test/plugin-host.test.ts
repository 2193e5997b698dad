import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { systemClock, Tokens, type ChannelEvent, type HostSettings } from '@parley/core';
import { container as rootContainer } from 'tsyringe';
import type { PluginEntry } from '../src/config/config.js';
import { loadPlugins, PluginError } from '../src/plugins/plugin-host.js';
import { MapMediaStore } from './fixtures/memory-media.plugin.js';
import { silentLogger } from './support.js';

const here = dirname(fileURLToPath(import.meta.url));
const host: HostSettings = { dataDir: '/tmp/parley-plugin-host-test', publicUrl: 'http://localhost:8080', allowPrivateUrls: false };
const fixture = (name: string) => `./fixtures/${name}.js`;
const memory: PluginEntry = { package: '@parley/storage-memory' };
const sandbox: PluginEntry = { package: '@parley/channel-sandbox' };

function load(entries: PluginEntry[]) {
  return loadPlugins(entries, { container: rootContainer.createChildContainer(), logger: silentLogger(), host, clock: systemClock, baseDir: here });
}

async function refused(entries: PluginEntry[], message: string | RegExp): Promise<void> {
  await assert.rejects(load(entries), (err: unknown) => {
    assert.ok(err instanceof PluginError, `expected a PluginError, got ${String(err)}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

const qrEvent = { type: 'qrcode', qr: 'q', image: 'i', id: '01', instance: 'ins_1', provider: 'whatsapp', receivedAt: 1 } as ChannelEvent;

const NO_STORAGE = 'no storage back end configured: add one storage plugin to the configuration\'s `plugins` (for example @parley/storage-sqlite), '
  + 'or start the server from a distribution that lists its defaults (@parley/distribution)';

describe('plugin host: a good configuration', () => {
  it('loads packages and relative-path modules in order, validates and defaults options, and answers what they provide', async () => {
    const loaded = await load([
      memory, sandbox, { package: '@parley/webhook-native' },
      { package: fixture('greeting-format.plugin'), options: { greeting: 'hello' } },
    ]);
    assert.deepEqual(loaded.manifests.map((m) => [m.name, m.kind]), [
      ['@parley/storage-memory', 'storage'], ['@parley/channel-sandbox', 'channel'], ['@parley/webhook-native', 'webhook-format'],
      ['@fixture/greeting-format', 'webhook-format'],
    ]);
    assert.equal(loaded.storage.name, 'memory');
    assert.deepEqual([...loaded.drivers.keys()], ['sandbox']);
    assert.equal(loaded.drivers.get('sandbox')!.role, 'main');
    assert.deepEqual([...loaded.formats.keys()], ['native', 'greeting']);
    // `times` was absent: the schema default (1) was applied before register ran.
    assert.deepEqual(loaded.formats.get('greeting')!.render(qrEvent, {} as never), { text: 'hello', type: 'qrcode' });
  });

  it('hands each plugin its own validated options', async () => {
    const loaded = await load([memory, { package: fixture('greeting-format.plugin'), options: { greeting: 'hi', times: 3 } }]);
    assert.deepEqual(loaded.formats.get('greeting')!.render(qrEvent, {} as never), { text: 'hi hi hi', type: 'qrcode' });
  });

  it('registers the storage under the core token of the given container', async () => {
    const container = rootContainer.createChildContainer();
    const loaded = await loadPlugins([memory], { container, logger: silentLogger(), host, clock: systemClock, baseDir: here });
    assert.equal(container.resolve(Tokens.Storage), loaded.storage);
  });

  it('accepts an absolute module path', async () => {
    const loaded = await load([memory, { package: `${here}/fixtures/greeting-format.plugin.js`, options: { greeting: 'abs' } }]);
    assert.deepEqual([...loaded.formats.keys()], ['greeting']);
  });
});

describe('plugin host: bad options name the plugin and the field', () => {
  it('a missing required option', async () => {
    await refused([memory, { package: fixture('greeting-format.plugin') }], 'plugin @fixture/greeting-format: invalid options: options.greeting is required');
  });

  it('every wrong option at once (type, bound, unknown member)', async () => {
    await refused(
      [memory, { package: fixture('greeting-format.plugin'), options: { greeting: 5, times: 0, colour: 'red' } }],
      'plugin @fixture/greeting-format: invalid options: options.colour is not allowed; options.greeting must be string; options.times must be >= 1',
    );
  });

  it('a real plugin\'s options (the sandbox channel)', async () => {
    await refused([memory, { package: '@parley/channel-sandbox', options: { autoScanMs: -1 } }],
      'plugin @parley/channel-sandbox: invalid options: options.autoScanMs must be >= 0');
    await refused([memory, { package: '@parley/channel-sandbox', options: { latencyMs: '5' } }],
      'plugin @parley/channel-sandbox: invalid options: options.latencyMs must be integer');
    await refused([memory, { package: '@parley/channel-sandbox', options: { inboxRecheckMs: 50 } }],
      'plugin @parley/channel-sandbox: invalid options: options.inboxRecheckMs must be >= 1000');
    await refused([memory, { package: '@parley/storage-redis', options: { pingIntervalMs: 50 } }],
      'plugin @parley/storage-redis: invalid options: options.pingIntervalMs must be >= 100');
  });

  it('an optionsSchema that does not compile', async () => {
    await refused([memory, { package: fixture('invalid-schema.plugin') }], /^plugin @fixture\/invalid-schema has an invalid optionsSchema: /);
  });
});

describe('plugin host: modules that are not plugins', () => {
  it('refuses a core version the plugin was not built for, before register runs', async () => {
    await refused([memory, { package: fixture('future-core.plugin') }], 'plugin @fixture/future-core needs @parley/core ^9.0.0, this server has 0.1.0');
  });

  it('composes the storage with a media store set by a kind "media" plugin, wherever it is listed', async () => {
    const container = rootContainer.createChildContainer();
    const loaded = await loadPlugins([memory, sandbox, { package: fixture('memory-media.plugin') }], { container, logger: silentLogger(), host, clock: systemClock, baseDir: here });
    const store = loaded.storage.media as MapMediaStore;
    assert.ok(store instanceof MapMediaStore);
    // Plugins and host services resolve the composed storage; everything but media is the back end's own.
    assert.equal(container.resolve<typeof loaded.storage>(Tokens.Storage).media, store);
    assert.equal(loaded.storage.name, 'memory');
    await loaded.storage.init();
    assert.equal(store.inits, 1);
    await loaded.storage.media.put('ins_1', 'm1', { data: Buffer.from('x'), mimetype: 'text/plain' });
    assert.equal(store.blobs.size, 1);
    await loaded.storage.instances.list();
    await loaded.storage.close();
    assert.equal(store.closes, 1);
  });

  it('refuses a module without a definePlugin default export', async () => {
    await refused([memory, { package: fixture('named-export-only') }], 'plugin ./fixtures/named-export-only.js has no definePlugin(...) default export');
    await refused([memory, { package: fixture('default-not-manifest') }], 'plugin ./fixtures/default-not-manifest.js has no definePlugin(...) default export');
  });

  it('refuses an unknown kind', async () => {
    await refused([memory, { package: fixture('unknown-kind.plugin') }], 'plugin @fixture/unknown-kind: unknown kind "widget"');
  });

  it('names a module that cannot be imported', async () => {
    await refused([memory, { package: './fixtures/missing.plugin.js' }], /^plugin \.\/fixtures\/missing\.plugin\.js cannot be loaded: /);
    await refused([memory, { package: '@parley/no-such-plugin' }], /^plugin @parley\/no-such-plugin cannot be loaded: .*@parley\/no-such-plugin/);
  });
});

describe('plugin host: conflicts refuse to boot', () => {
  it('two storage back ends', async () => {
    await refused([memory, sandbox, { package: fixture('second-storage.plugin') }],
      'two storage back ends configured: @parley/storage-memory and @fixture/second-storage; keep exactly one');
  });

  it('two media stores', async () => {
    await refused([memory, { package: fixture('memory-media.plugin') }, { package: fixture('memory-media.plugin') }],
      'two media stores configured: @fixture/memory-media and @fixture/memory-media; keep at most one');
  });

  it('two drivers claiming one channel name', async () => {
    await refused([memory, sandbox, { package: fixture('sandbox-twin.plugin') }],
      'two drivers claim the channel "sandbox": @parley/channel-sandbox and @fixture/sandbox-twin');
  });

  it('two webhook formats with one name', async () => {
    await refused([memory, { package: '@parley/webhook-native' }, { package: '@parley/webhook-native' }],
      'two webhook formats named "native": @parley/webhook-native and @parley/webhook-native');
  });

  it('no storage back end', async () => {
    await refused([sandbox, { package: '@parley/webhook-native' }], NO_STORAGE);
    await refused([], NO_STORAGE);
  });
});

describe('plugin host: manifests declare what they provide and need', () => {
  const lookalike = (options: Record<string, unknown>): PluginEntry => ({ package: fixture('options-channel.plugin'), options });

  it('a plugin that needs what no configured plugin provides: names the plugin and every missing item', async () => {
    await refused([memory, sandbox, { package: fixture('needy.plugin') }],
      'plugin @fixture/needy needs a driver of the channel "instagram", the webhook format "native", the external-database connector "mongodb", which no configured plugin provides');
    await refused([{ package: '@parley/storage-sqlite' }, { package: fixture('needy.plugin') }],
      /^plugin @fixture\/needy needs the plugin @parley\/storage-memory, a driver of the channel "instagram", /);
  });

  it('needs are checked once every plugin registered, whatever the order', async () => {
    const loaded = await load([
      { package: fixture('needy.plugin') }, memory, { package: '@parley/webhook-native' },
      { package: '@parley/channel-instagram' }, { package: '@parley/storage-mongodb/external' },
    ]);
    assert.deepEqual(loaded.manifests.map((m) => m.name), [
      '@fixture/needy', '@parley/storage-memory', '@parley/webhook-native', '@parley/channel-instagram', '@parley/storage-mongodb/external',
    ]);
    assert.equal(loaded.externalDatabase?.kind, 'mongodb');
  });

  it('a channel id that is not one (driver name or wire channel)', async () => {
    await refused([memory, lookalike({ name: 'Look Alike' })],
      'plugin @fixture/options-channel: channel driver name "Look Alike" is not a channel id (a lower-case letter, then up to 31 lower-case letters, digits or dashes)');
    await refused([memory, lookalike({ channel: 'WhatsApp' })],
      'plugin @fixture/options-channel: driver "lookalike" drives "WhatsApp", which is not a channel id (a lower-case letter, then up to 31 lower-case letters, digits or dashes)');
  });

  it('a registration the manifest does not declare, and a declaration never registered', async () => {
    await refused([memory, lookalike({ name: 'other' })],
      'plugin @fixture/options-channel: registered the channel driver "other" without declaring it in provides.channels');
    await refused([memory, lookalike({ skip: true })],
      'plugin @fixture/options-channel: declares the channel driver "lookalike" in provides.channels but did not register it');
  });

  it('drivers of one channel that disagree on its addressing', async () => {
    await refused([memory, sandbox, lookalike({ channel: 'whatsapp', phoneNumbers: false })],
      'drivers of the channel "whatsapp" disagree on its addressing: "sandbox" (@parley/channel-sandbox) and "lookalike" (@fixture/options-channel)');
    const loaded = await load([memory, sandbox, lookalike({ channel: 'whatsapp' })]);
    assert.deepEqual([...loaded.drivers.values()].map((d) => [d.name, d.channel]), [['sandbox', 'whatsapp'], ['lookalike', 'whatsapp']]);
  });

  it('a new channel id registers like a shipped one', async () => {
    const loaded = await load([memory, lookalike({ channel: 'carrier-pigeon' })]);
    assert.equal(loaded.drivers.get('lookalike')!.channel, 'carrier-pigeon');
  });

  it('two external-database connectors', async () => {
    await refused([memory, { package: '@parley/storage-mongodb/external' }, { package: fixture('second-connector.plugin') }],
      'two external-database connectors configured: @parley/storage-mongodb/external and @fixture/second-connector ("postgres"); keep at most one');
  });

  it('a manifest without provides', async () => {
    await refused([memory, { package: fixture('no-provides.plugin') }], 'plugin @fixture/no-provides declares no provides (what its register adds)');
  });
});

describe('plugin host: event sinks', () => {
  const echo = (options: Record<string, unknown> = {}): PluginEntry => ({ package: fixture('echo-sink.plugin'), options });

  it('registers a sink under its name and checks needs.sinks', async () => {
    const loaded = await load([memory, echo()]);
    assert.deepEqual([...loaded.sinks.keys()], ['echo']);
    assert.equal(loaded.manifests[1]!.kind, 'sink');
    await refused([memory, echo(), { package: fixture('sink-consumer.plugin') }],
      'plugin @fixture/sink-consumer needs the event sink "kafka", which no configured plugin provides');
  });

  it('refuses an undeclared sink, a bad sink name and two sinks of one name', async () => {
    await refused([memory, echo({ name: 'other' })], 'plugin @fixture/echo-sink: registered the event sink "other" without declaring it in provides.sinks');
    await refused([memory, echo({ name: 'Echo Sink' })],
      'plugin @fixture/echo-sink: sink name "Echo Sink" is not a sink id (a lower-case letter, then up to 31 lower-case letters, digits or dashes)');
    await refused([memory, echo(), { package: `${here}/fixtures/echo-sink.plugin.js` }], /^two event sinks named "echo": @fixture\/echo-sink and @fixture\/echo-sink$/);
  });

  it('the shipped sinks: options validated naming the field; no broker URL refuses to boot', async () => {
    await refused([memory, { package: '@parley/sink-amqp', options: { url: 'http://rabbit', exchange: '' } }],
      'plugin @parley/sink-amqp: invalid options: options.url must match pattern "^amqps?://"; options.exchange must NOT have fewer than 1 characters; options.exchange must match pattern "^[A-Za-z0-9_.:-]+$"');
    await refused([memory, { package: '@parley/sink-nats', options: { stream: 'a.b', tls: { certFile: 'c.pem' } } }],
      /^plugin @parley\/sink-nats: invalid options: options\.stream must match pattern .*options\.tls must have property keyFile when property certFile is present/);
    const saved = process.env.NATS_URL;
    delete process.env.NATS_URL;
    try {
      await assert.rejects(load([memory, { package: '@parley/sink-nats' }]), /@parley\/sink-nats: set options\.url or the NATS_URL environment variable/);
    } finally {
      if (saved !== undefined) process.env.NATS_URL = saved;
    }
    await assert.rejects(load([memory, { package: '@parley/sink-amqp', options: { url: 'amqp://h', tls: { caFile: '/nonexistent/ca.pem' } } }]),
      /options\.tls\.caFile: cannot read \/nonexistent\/ca\.pem: ENOENT/);
    const loaded = await load([memory, { package: '@parley/sink-amqp', options: { url: 'amqp://127.0.0.1:1' } }, { package: '@parley/sink-nats', options: { url: 'nats://127.0.0.1:1' } }]);
    assert.deepEqual([...loaded.sinks.keys()], ['amqp', 'nats'], 'registering does not connect: an unreachable broker is a start-up state, not a boot error');
  });
});

