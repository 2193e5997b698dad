import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { systemClock, type ChannelEvent, type WebhookRenderContext } from '@parley/core';
import { container as rootContainer } from 'tsyringe';
import { ParleyServer } from '../src/app/parley-server.js';
import { loadConfig, type PluginEntry } from '../src/config/config.js';
import { loadPlugins, PluginError } from '../src/plugins/plugin-host.js';
import { serviceUrlOrSkip } from '@parley/testkit';
import { silentLogger } from './support.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../../..');
const examples = join(root, 'examples');
/** The example plugin, by a path relative to this compiled test (the plugin host resolves it against `baseDir`). */
const UPPERCASE = '../../../../examples/plugin-uppercase-format/dist/src/index.js';
const host = { dataDir: tmpdir(), publicUrl: 'http://localhost:8080', allowPrivateUrls: false };

function load(entries: PluginEntry[]) {
  return loadPlugins(entries, { container: rootContainer.createChildContainer(), logger: silentLogger(), host, clock: systemClock, baseDir: here });
}

const context: WebhookRenderContext = { instance: {} as never, serviceTag: 'parley', mediaUrl: (id) => `http://x/${id}` };
const meta = { id: '01JEVENT', instance: 'ins_01abc', provider: 'whatsapp' as const, receivedAt: 1_700_000_000_000 };
const textEvent = {
  ...meta, type: 'message',
  message: {
    id: '3EB0AAA', chatJid: '5511900000001@s.whatsapp.net', from: '5511900000001', fromMe: false, timestamp: 1_700_000_000, chatType: 'individual',
    content: { type: 'text', body: 'hello, Parley!' }, record: {} as never,
  },
} as ChannelEvent;

describe('examples/plugin-uppercase-format: a third-party webhook-format plugin', () => {
  before(() => {
    assert.ok(existsSync(resolve(here, UPPERCASE)), 'the example plugin is not built: run `npx tsc -b examples/plugin-uppercase-format` (the root `npm run build` builds it)');
  });

  it('loads by relative path with default options and renders text in upper case', async () => {
    const loaded = await load([{ package: '@parley/storage-memory' }, { package: UPPERCASE }]);
    assert.deepEqual(loaded.manifests.map((m) => [m.name, m.kind, m.coreVersion]), [
      ['@parley/storage-memory', 'storage', '^0.1.0'], ['@parley-example/webhook-uppercase', 'webhook-format', '^0.1.0'],
    ]);
    const format = loaded.formats.get('uppercase')!;
    assert.deepEqual(format.render(textEvent, context), {
      object: 'parley', event: 'message', instance: 'ins_01abc', provider: 'whatsapp', eventId: '01JEVENT', receivedAt: 1_700_000_000_000,
      message: { id: '3EB0AAA', from: '5511900000001', chat: '5511900000001@s.whatsapp.net', fromMe: false, text: 'HELLO, PARLEY!' },
    });
    assert.deepEqual(format.render({ ...meta, type: 'connection', status: 'close', code: 1004, reason: 'disconnected', loggedOut: false, willReconnect: true }, context), {
      object: 'parley', event: 'connection', instance: 'ins_01abc', provider: 'whatsapp', eventId: '01JEVENT', receivedAt: 1_700_000_000_000,
    });
    assert.equal(format.render({ ...meta, type: 'presence', jid: 'x@s.whatsapp.net', status: 'available' }, context), null);
    assert.deepEqual(format.signatureHeaders!('{"a":1}', 'whsec_test'), {
      'X-Uppercase-Signature': 'sha256=51426af50a41dd7ff2cd3f116594734766d4018d15d6fb07169aee5d2959adf5',
    });
  });

  it('honours its options', async () => {
    const loaded = await load([{ package: '@parley/storage-memory' }, { package: UPPERCASE, options: { events: ['presence'], signatureHeader: 'X-Sig' } }]);
    const format = loaded.formats.get('uppercase')!;
    assert.equal(format.render(textEvent, context), null);
    assert.equal((format.render({ ...meta, type: 'presence', jid: 'x@s.whatsapp.net', status: 'available' }, context) as { event: string }).event, 'presence');
    assert.deepEqual(Object.keys(format.signatureHeaders!('{}', 's')), ['X-Sig']);
  });

  it('bad options stop the load with the plugin and the field named', async () => {
    await assert.rejects(load([{ package: '@parley/storage-memory' }, { package: UPPERCASE, options: { events: [], signatureHeader: 'bad header' } }]), (err: unknown) => {
      assert.ok(err instanceof PluginError);
      assert.equal(err.message, 'plugin @parley-example/webhook-uppercase: invalid options: options.events must NOT have fewer than 1 items; options.signatureHeader must match pattern "^[A-Za-z0-9-]+$"');
      return true;
    });
  });

  it('its package.json names the example package and declares core as its only peer (plugins never touch the container)', () => {
    const pkg = JSON.parse(readFileSync(join(examples, 'plugin-uppercase-format', 'package.json'), 'utf8'));
    assert.equal(pkg.name, '@parley-example/webhook-uppercase');
    assert.equal(pkg.type, 'module');
    assert.deepEqual(Object.keys(pkg.peerDependencies).sort(), ['@parley/core']);
  });
});

describe('examples/config.*.json', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-examples-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('config.sandbox.json is valid and boots a sandbox server on SQLite', async () => {
    const config = loadConfig({ PARLEY_CONFIG: join(examples, 'config.sandbox.json') }, { port: 0, dataDir, adminToken: 'examples-admin-token-0123' });
    assert.equal(config.defaultChannel, 'sandbox');
    assert.equal(config.baseDir, examples);
    assert.deepEqual(config.plugins.map((p) => p.package), ['@parley/storage-sqlite', '@parley/webhook-native', '@parley/webhook-meta', '@parley/channel-sandbox']);
    const server = await ParleyServer.create({ config, logger: silentLogger() });
    try {
      const url = await server.listen();
      assert.equal(server.context.storage.name, 'sqlite');
      assert.deepEqual([...server.context.drivers.keys()], ['sandbox']);
      assert.deepEqual([...server.context.formats.keys()].sort(), ['cloud-api', 'meta', 'native']);
      const ready = await fetch(`${url}/readyz`);
      assert.deepEqual(await ready.json(), { status: 200, data: { status: 'ready', storage: 'sqlite', sinks: {} } });
      assert.ok(existsSync(join(dataDir, 'parley.db')));
    } finally {
      await server.close();
    }
  });

  it('keep their data out of git: each data directory is git-ignored', () => {
    for (const name of ['config.sandbox.json', 'config.redis.json', 'config.sinks.json', 'config.whatsapp-sim.json']) {
      const config = loadConfig({ PARLEY_CONFIG: join(examples, name) });
      assert.ok(config.dataDir.startsWith(`${examples}/`), `${name}: ${config.dataDir} is beside the example`);
      // --no-index: the answer depends on .gitignore only, not on what happens to be tracked.
      const ignored = spawnSync('git', ['check-ignore', '--no-index', '-q', join(config.dataDir, 'parley.db')], { cwd: root });
      assert.equal(ignored.status, 0, `${name}: ${config.dataDir} is not git-ignored${ignored.stderr}`);
    }
  });

  const redisConfig = () => loadConfig({ PARLEY_CONFIG: join(examples, 'config.redis.json') }, { port: 0, dataDir, adminToken: 'examples-admin-token-0123' });

  it('config.redis.json is valid and takes the Redis URL from REDIS_URL', () => {
    const redis = redisConfig().plugins[0]!;
    assert.equal(redis.package, '@parley/storage-redis');
    assert.equal((redis.options as { url?: string }).url, undefined);
  });

  if (serviceUrlOrSkip('REDIS_URL', 'booting examples/config.redis.json')) {
    it('config.redis.json boots on the Redis of REDIS_URL', async () => {
      const config = redisConfig();
      const redis = config.plugins[0]!;
      // Only the storage plugin of the example is booted here: the other entries are the defaults, covered elsewhere.
      const prefix = `parley-example-test-${process.pid}:`;
      const server = await ParleyServer.create({
        config: { ...config, plugins: [{ package: '@parley/storage-redis', options: { ...redis.options, keyPrefix: prefix } }, { package: '@parley/channel-sandbox' }] },
        logger: silentLogger(),
      });
      try {
        const url = await server.listen();
        const ready = await fetch(`${url}/readyz`);
        assert.deepEqual(await ready.json(), { status: 200, data: { status: 'ready', storage: 'redis', sinks: {} } });
      } finally {
        await server.close();
      }
    });
  }

  it('config.sinks.json is valid and registers both sinks with the broker URLs from AMQP_URL / NATS_URL (connecting is a start-up matter)', async () => {
    const config = loadConfig({ PARLEY_CONFIG: join(examples, 'config.sinks.json') }, { port: 0, dataDir, adminToken: 'examples-admin-token-0123' });
    const saved = { amqp: process.env.AMQP_URL, nats: process.env.NATS_URL };
    process.env.AMQP_URL = 'amqp://127.0.0.1:1';
    process.env.NATS_URL = 'nats://127.0.0.1:1';
    try {
      const loaded = await load(config.plugins);
      assert.deepEqual([...loaded.sinks.keys()], ['amqp', 'nats']);
    } finally {
      for (const [name, value] of [['AMQP_URL', saved.amqp], ['NATS_URL', saved.nats]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
