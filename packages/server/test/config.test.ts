import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { container as rootContainer } from 'tsyringe';
import { systemClock } from '@parley/core';
import { ConfigError, loadConfig } from '../src/config/config.js';
import { loadPlugins } from '../src/plugins/plugin-host.js';
import { silentLogger } from './support.js';

const here = dirname(fileURLToPath(import.meta.url));
let dir: string;

/** Writes a config file and answers the environment that points at it. */
function configFile(content: unknown, name = 'parley.json'): { PARLEY_CONFIG: string } {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return { PARLEY_CONFIG: path };
}

function invalid(content: unknown, message: string): void {
  const env = configFile(content);
  assert.throws(() => loadConfig(env), (err: unknown) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.message, `invalid config ${env.PARLEY_CONFIG}: ${message}`);
    return true;
  });
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-config-test-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('loadConfig defaults', () => {
  it('without a file or environment: port 8080 on every interface, SQLite under ./data, no plugins of its own', () => {
    assert.deepEqual(loadConfig({}), {
      port: 8080,
      host: '0.0.0.0',
      dataDir: resolve('./data'),
      publicUrl: undefined,
      logLevel: 'info',
      logFormat: 'auto',
      defaultChannel: 'whatsapp',
      serviceTag: 'parley',
      bodyLimitBytes: 1024 * 1024,
      // The base64 form of the largest media (16 MiB) plus 64 KiB for the other members.
      mediaBodyLimitBytes: 22_369_624 + 65_536,
      publicBodies: { timeoutMs: 30_000, maxBufferedBytes: 64 * 1024 * 1024 },
      rateLimit: { failures: 50, windowSeconds: 60, blockSeconds: 300 },
      trustProxy: false,
      allowPrivateUrls: false,
      allowPrivateProxies: undefined,
      media: { maxBytes: 16 * 1024 * 1024, timeoutMs: 15000, maxDownloadBytes: 100 * 1024 * 1024, downloadTimeoutMs: 300000, downloadIdleMs: 30000 },
      restore: { concurrency: 64, perSecond: {} },
      shutdownTimeoutMs: 10000,
      queue: { enabled: true, maxQueued: 10_000, leaseMs: 60_000, recheckMs: 1_000, concurrency: 64 },
      webhooks: {},
      plugins: [],
      adminToken: undefined,
      metrics: {},
      streams: { retentionSeconds: 86_400, heartbeatSeconds: 15, maxPerInstance: 100, maxTotal: 10_000, bufferBytes: 262_144 },
      events: { outageWaitSeconds: 900, maxBacklog: 10_000, maxBacklogBytes: 64 << 20 },
      mcp: { enabled: true, maxSessions: 100, maxSessionsPerInstance: 10, idleSeconds: 600 },
      baseDir: process.cwd(),
    });
  });

  it('takes the plugins a distribution supplies when the file names none; the file\'s list wins', () => {
    const defaults = { plugins: [{ package: '@parley/storage-memory' }] };
    assert.deepEqual(loadConfig({}, {}, defaults).plugins, defaults.plugins);
    assert.deepEqual(loadConfig(configFile({ plugins: [{ package: '@parley/storage-sqlite' }] }), {}, defaults).plugins, [{ package: '@parley/storage-sqlite' }]);
  });
});

describe('loadConfig from PARLEY_CONFIG', () => {
  it('reads every member; relative dataDir and plugin paths resolve against the file\'s directory', () => {
    const env = configFile({
      $schema: './schema.json', port: 9000, host: '127.0.0.1', dataDir: 'state', publicUrl: 'https://parley.example.com', logLevel: 'warn', logFormat: 'pretty',
      defaultChannel: 'sandbox', serviceTag: 'acme', bodyLimitBytes: 4096, mediaBodyLimitBytes: 8192, allowPrivateUrls: true,
      publicBodies: { timeoutMs: 5000, maxBufferedBytes: 1048576 },
      media: { maxBytes: 2048, timeoutMs: 500, maxDownloadBytes: 4096, downloadTimeoutMs: 60000, downloadIdleMs: 5000 }, rateLimit: { failures: 5, windowSeconds: 10, blockSeconds: 20 }, trustProxy: 'loopback',
      restore: { concurrency: 8, perSecond: { whatsapp: 1 } }, shutdownTimeoutMs: 1000, webhooks: { maxAttempts: 3 }, metrics: { token: 'file-metrics-token-0123' },
      streams: { retentionSeconds: 3600, heartbeatSeconds: 5, maxPerInstance: 7, maxTotal: 70, bufferBytes: 4096 },
      events: { outageWaitSeconds: 60, maxBacklog: 500, maxBacklogBytes: 2 << 20 },
      mcp: { enabled: false, maxSessions: 5, maxSessionsPerInstance: 2, idleSeconds: 60 },
      queue: { enabled: false, maxQueued: 50, leaseMs: 30_000, recheckMs: 20, concurrency: 2 },
      plugins: [{ package: '@parley/storage-memory' }, { package: './local-plugin.js', options: { a: 1 } }],
    });
    assert.deepEqual(loadConfig(env), {
      port: 9000,
      host: '127.0.0.1',
      dataDir: join(dir, 'state'),
      publicUrl: 'https://parley.example.com',
      logLevel: 'warn',
      logFormat: 'pretty',
      defaultChannel: 'sandbox',
      serviceTag: 'acme',
      bodyLimitBytes: 4096,
      mediaBodyLimitBytes: 8192,
      publicBodies: { timeoutMs: 5000, maxBufferedBytes: 1048576 },
      rateLimit: { failures: 5, windowSeconds: 10, blockSeconds: 20 },
      trustProxy: 'loopback',
      allowPrivateUrls: true,
      // Not in the file: unset, so proxies follow allowPrivateUrls.
      allowPrivateProxies: undefined,
      media: { maxBytes: 2048, timeoutMs: 500, maxDownloadBytes: 4096, downloadTimeoutMs: 60000, downloadIdleMs: 5000 },
      restore: { concurrency: 8, perSecond: { whatsapp: 1 } },
      shutdownTimeoutMs: 1000,
      queue: { enabled: false, maxQueued: 50, leaseMs: 30_000, recheckMs: 20, concurrency: 2 },
      webhooks: { maxAttempts: 3 },
      plugins: [{ package: '@parley/storage-memory' }, { package: './local-plugin.js', options: { a: 1 } }],
      adminToken: undefined,
      metrics: { token: 'file-metrics-token-0123' },
      streams: { retentionSeconds: 3600, heartbeatSeconds: 5, maxPerInstance: 7, maxTotal: 70, bufferBytes: 4096 },
      events: { outageWaitSeconds: 60, maxBacklog: 500, maxBacklogBytes: 2 << 20 },
      mcp: { enabled: false, maxSessions: 5, maxSessionsPerInstance: 2, idleSeconds: 60 },
      baseDir: dir,
    });
  });

  it('keeps an absolute dataDir and fills partial nested objects with defaults', () => {
    const config = loadConfig(configFile({ dataDir: '/var/lib/parley', media: { timeoutMs: 100 } }));
    assert.equal(config.dataDir, '/var/lib/parley');
    assert.deepEqual(config.media, { maxBytes: 16 * 1024 * 1024, timeoutMs: 100, maxDownloadBytes: 100 * 1024 * 1024, downloadTimeoutMs: 300000, downloadIdleMs: 30000 });
    assert.deepEqual(config.plugins, []);
  });

  it('loads a plugin given by a path relative to the config file', async () => {
    const fixture = relative(dir, join(here, 'fixtures', 'greeting-format.plugin.js'));
    const config = loadConfig(configFile({ plugins: [{ package: '@parley/storage-memory' }, { package: `./${fixture}`, options: { greeting: 'yo' } }] }));
    const loaded = await loadPlugins(config.plugins, {
      container: rootContainer.createChildContainer(), logger: silentLogger(), host: { dataDir: dir, publicUrl: 'http://x', allowPrivateUrls: false }, clock: systemClock, baseDir: config.baseDir,
    });
    assert.deepEqual([...loaded.formats.keys()], ['greeting']);
  });

  it('errors name the field: wrong types', () => {
    invalid({ port: '8080' }, 'config.port must be integer');
    invalid({ allowPrivateUrls: 'yes' }, 'config.allowPrivateUrls must be boolean');
    invalid({ plugins: { package: 'x' } }, 'config.plugins must be array');
  });

  it('errors name the field: bounds, enums, patterns', () => {
    invalid({ port: 70000 }, 'config.port must be <= 65535');
    invalid({ logLevel: 'loud' }, 'config.logLevel must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"');
    invalid({ logFormat: 'colour' }, 'config.logFormat must be one of "auto", "json", "pretty"');
    invalid({ publicBodies: { timeoutMs: 50 } }, 'config.publicBodies.timeoutMs must be >= 100');
    invalid({ publicBodies: { maxBufferedBytes: 'lots' } }, 'config.publicBodies.maxBufferedBytes must be integer');
    invalid({ publicUrl: 'ftp://x' }, 'config.publicUrl must match pattern "^https?://"');
    invalid({ media: { maxBytes: 10 } }, 'config.media.maxBytes must be >= 1024');
    invalid({ media: { maxDownloadBytes: 10 } }, 'config.media.maxDownloadBytes must be >= 1024');
    invalid({ media: { maxDownloadBytes: 268435457 } }, 'config.media.maxDownloadBytes must be <= 268435456');
    invalid({ media: { maxDownloadBytes: '100MB' } }, 'config.media.maxDownloadBytes must be integer');
    invalid({ media: { downloadTimeoutMs: 99 } }, 'config.media.downloadTimeoutMs must be >= 100');
    invalid({ media: { downloadTimeoutMs: 3600001 } }, 'config.media.downloadTimeoutMs must be <= 3600000');
    invalid({ media: { downloadIdleMs: 99 } }, 'config.media.downloadIdleMs must be >= 100');
    invalid({ media: { downloadIdleMs: '30s' } }, 'config.media.downloadIdleMs must be integer');
    invalid({ dataDir: '' }, 'config.dataDir must NOT have fewer than 1 characters');
    invalid({ mcp: { maxSessions: 0 } }, 'config.mcp.maxSessions must be >= 1');
    invalid({ mcp: { maxSessionsPerInstance: 'ten' } }, 'config.mcp.maxSessionsPerInstance must be integer');
    invalid({ mcp: { idleSeconds: 5 } }, 'config.mcp.idleSeconds must be >= 10');
    invalid({ mcp: { enabled: 'yes' } }, 'config.mcp.enabled must be boolean');
    invalid({ events: { outageWaitSeconds: 0 } }, 'config.events.outageWaitSeconds must be >= 1');
    invalid({ events: { maxBacklog: 10 } }, 'config.events.maxBacklog must be >= 100');
    invalid({ events: { maxBacklogBytes: 1024 } }, 'config.events.maxBacklogBytes must be >= 1048576');
    invalid({ events: { outageWait: 60 } }, 'config.events.outageWait is not allowed');
  });

  it('errors name the field: missing and unknown members, in arrays and nested objects', () => {
    invalid({ plugins: [{ package: '@parley/storage-memory' }, { options: {} }] }, 'config.plugins[1].package is required');
    invalid({ prot: 8080 }, 'config.prot is not allowed');
    invalid({ restore: { stagger: 1 } }, 'config.restore.stagger is not allowed');
    invalid({ mcp: { sessions: 1 } }, 'config.mcp.sessions is not allowed');
    invalid({ plugins: [{ package: 'x', option: {} }] }, 'config.plugins[0].option is not allowed');
  });

  it('reports every error at once', () => {
    invalid({ port: -1, host: '', shutdownTimeoutMs: 1 }, 'config.port must be >= 0; config.host must NOT have fewer than 1 characters; config.shutdownTimeoutMs must be >= 100');
  });

  it('refuses a file that is not a JSON object', () => {
    invalid([1, 2], 'config must be object');
  });

  it('names a file that cannot be read or parsed', () => {
    const missing = join(dir, 'missing.json');
    assert.throws(() => loadConfig({ PARLEY_CONFIG: missing }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, new RegExp(`^cannot read config ${missing.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: ENOENT`));
      return true;
    });
    const env = configFile('{ "port": 80, }', 'broken.json');
    assert.throws(() => loadConfig(env), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.ok(err.message.startsWith(`cannot read config ${env.PARLEY_CONFIG}: `), err.message);
      assert.match(err.message, /JSON/);
      return true;
    });
  });
});

describe('loadConfig environment overrides', () => {
  const file = () => configFile({ port: 9000, host: '127.0.0.1', dataDir: 'from-file', allowPrivateUrls: true, logLevel: 'warn', publicUrl: 'https://file.example.com' });

  it('PORT, PARLEY_DATA_DIR, PARLEY_ADMIN_TOKEN, PARLEY_ALLOW_PRIVATE_URLS, HOST, LOG_LEVEL and PARLEY_PUBLIC_URL win over the file', () => {
    const config = loadConfig({
      ...file(), PORT: '7001', PARLEY_DATA_DIR: join(dir, 'from-env'), PARLEY_ADMIN_TOKEN: 'env-admin-token-0123456789', PARLEY_ALLOW_PRIVATE_URLS: '0',
      HOST: '::1', LOG_LEVEL: 'debug', PARLEY_PUBLIC_URL: 'https://env.example.com',
    });
    assert.equal(config.port, 7001);
    assert.equal(config.dataDir, join(dir, 'from-env'));
    assert.equal(config.adminToken, 'env-admin-token-0123456789');
    assert.equal(config.allowPrivateUrls, false);
    assert.equal(config.host, '::1');
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.publicUrl, 'https://env.example.com');
    assert.equal(loadConfig({ ...configFile({ logFormat: 'pretty' }), PARLEY_LOG_FORMAT: 'json' }).logFormat, 'json', 'PARLEY_LOG_FORMAT wins over the file');
    assert.equal(loadConfig({ ...configFile({ logFormat: 'json' }), PARLEY_LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
    assert.throws(() => loadConfig({ PARLEY_LOG_FORMAT: 'colour' }), { message: 'PARLEY_LOG_FORMAT must be one of auto, json, pretty' });
  });

  it('without the variables the file values stay', () => {
    const config = loadConfig(file());
    assert.equal(config.port, 9000);
    assert.equal(config.dataDir, join(dir, 'from-file'));
    assert.equal(config.adminToken, undefined);
    assert.equal(config.allowPrivateUrls, true);
  });

  it('a relative PARLEY_DATA_DIR resolves against the working directory', () => {
    assert.equal(loadConfig({ PARLEY_DATA_DIR: 'rel-data' }).dataDir, resolve('rel-data'));
  });

  it('PARLEY_ALLOW_PRIVATE_URLS accepts 1/true/yes/on (any case) as true, anything else as false, empty as unset', () => {
    for (const value of ['1', 'true', 'TRUE', 'yes', 'on']) assert.equal(loadConfig({ PARLEY_ALLOW_PRIVATE_URLS: value }).allowPrivateUrls, true, value);
    for (const value of ['0', 'false', 'no', 'off']) assert.equal(loadConfig({ ...file(), PARLEY_ALLOW_PRIVATE_URLS: value }).allowPrivateUrls, false, value);
    assert.equal(loadConfig({ ...file(), PARLEY_ALLOW_PRIVATE_URLS: '' }).allowPrivateUrls, true);
  });

  it('allowPrivateProxies: PARLEY_ALLOW_PRIVATE_PROXIES wins over the file; unset, proxies follow allowPrivateUrls', () => {
    assert.equal(loadConfig({ PARLEY_ALLOW_PRIVATE_PROXIES: '1' }).allowPrivateProxies, true);
    assert.equal(loadConfig({ PARLEY_ALLOW_PRIVATE_PROXIES: '1' }).allowPrivateUrls, false);
    assert.equal(loadConfig({ PARLEY_ALLOW_PRIVATE_URLS: '1' }).allowPrivateProxies, undefined);
    assert.equal(loadConfig({ PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_ALLOW_PRIVATE_PROXIES: 'off' }).allowPrivateProxies, false);
    assert.equal(loadConfig(configFile({ allowPrivateUrls: true, allowPrivateProxies: false })).allowPrivateProxies, false);
    assert.equal(loadConfig({ ...configFile({ allowPrivateProxies: false }), PARLEY_ALLOW_PRIVATE_PROXIES: 'yes' }).allowPrivateProxies, true);
  });

  it('PARLEY_RATE_LIMIT_* and PARLEY_TRUST_PROXY win over the file; bad numbers are refused naming the variable', () => {
    const env = configFile({ rateLimit: { failures: 5, windowSeconds: 10, blockSeconds: 20 }, trustProxy: true });
    assert.deepEqual(loadConfig(env).rateLimit, { failures: 5, windowSeconds: 10, blockSeconds: 20 });
    const config = loadConfig({
      ...env, PARLEY_RATE_LIMIT_FAILURES: '0', PARLEY_RATE_LIMIT_WINDOW_SECONDS: '30', PARLEY_RATE_LIMIT_BLOCK_SECONDS: '90', PARLEY_TRUST_PROXY: '2',
    });
    assert.deepEqual(config.rateLimit, { failures: 0, windowSeconds: 30, blockSeconds: 90 });
    assert.equal(config.trustProxy, 2);
    assert.equal(loadConfig({ ...env, PARLEY_TRUST_PROXY: 'off' }).trustProxy, false);
    assert.equal(loadConfig({ PARLEY_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy, 'loopback, 10.0.0.0/8');
    assert.throws(() => loadConfig({ PARLEY_RATE_LIMIT_WINDOW_SECONDS: '0' }), /PARLEY_RATE_LIMIT_WINDOW_SECONDS must be an integer of at least 1$/);
    assert.throws(() => loadConfig({ PARLEY_RATE_LIMIT_FAILURES: 'many' }), /PARLEY_RATE_LIMIT_FAILURES must be an integer of at least 0/);
  });

  it('PARLEY_RESTORE_CONCURRENCY and PARLEY_RESTORE_PER_SECOND win over the file (rates per driver); bad values are refused naming the variable or field', () => {
    const env = configFile({ restore: { concurrency: 4, perSecond: { whatsapp: 1, sandbox: 50 } } });
    assert.deepEqual(loadConfig(env).restore, { concurrency: 4, perSecond: { whatsapp: 1, sandbox: 50 } });
    assert.deepEqual(loadConfig({ ...env, PARLEY_RESTORE_CONCURRENCY: '16', PARLEY_RESTORE_PER_SECOND: ' sandbox = 2000 ,my-channel=3' }).restore,
      { concurrency: 16, perSecond: { whatsapp: 1, sandbox: 2000, 'my-channel': 3 } });
    assert.throws(() => loadConfig({ PARLEY_RESTORE_CONCURRENCY: '0' }), /PARLEY_RESTORE_CONCURRENCY must be an integer from 1 to 10000/);
    assert.throws(() => loadConfig({ PARLEY_RESTORE_PER_SECOND: 'whatsapp:2' }), /PARLEY_RESTORE_PER_SECOND must be driver=count pairs .* got "whatsapp:2"/);
    assert.throws(() => loadConfig({ PARLEY_RESTORE_PER_SECOND: 'whatsapp=0' }), /PARLEY_RESTORE_PER_SECOND/);
    invalid({ restore: { perSecond: { whatsapp: 0 } } }, 'config.restore.perSecond.whatsapp must be >= 1');
    invalid({ restore: { staggerMs: 500 } }, 'config.restore.staggerMs is not allowed');
  });

  it('PARLEY_METRICS_TOKEN wins over metrics.token; one shorter than 16 characters is refused, in the file or the variable', () => {
    const env = configFile({ metrics: { token: 'file-metrics-token-0123' } });
    assert.deepEqual(loadConfig(env).metrics, { token: 'file-metrics-token-0123' });
    assert.deepEqual(loadConfig({ ...env, PARLEY_METRICS_TOKEN: 'env-metrics-token-0123' }).metrics, { token: 'env-metrics-token-0123' });
    assert.deepEqual(loadConfig({ PARLEY_METRICS_TOKEN: '' }).metrics, {});
    assert.throws(() => loadConfig({ PARLEY_METRICS_TOKEN: 'short' }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.message, 'PARLEY_METRICS_TOKEN (metrics.token) must be at least 16 characters');
      return true;
    });
    invalid({ metrics: { token: 'short' } }, 'config.metrics.token must NOT have fewer than 16 characters');
    invalid({ metrics: { tokens: 'x' } }, 'config.metrics.tokens is not allowed');
  });

  it('PARLEY_EVENT_RETENTION_SECONDS wins over streams.retentionSeconds; below 60 is refused; streams members are checked', () => {
    const env = configFile({ streams: { retentionSeconds: 7200 } });
    assert.equal(loadConfig(env).streams.retentionSeconds, 7200);
    assert.equal(loadConfig({ ...env, PARLEY_EVENT_RETENTION_SECONDS: '600' }).streams.retentionSeconds, 600);
    assert.equal(loadConfig({ PARLEY_EVENT_RETENTION_SECONDS: '' }).streams.retentionSeconds, 86_400);
    assert.throws(() => loadConfig({ PARLEY_EVENT_RETENTION_SECONDS: '59' }), /PARLEY_EVENT_RETENTION_SECONDS must be an integer of at least 60$/);
    invalid({ streams: { bufferBytes: 10 } }, 'config.streams.bufferBytes must be >= 1024');
    invalid({ streams: { maxClients: 1 } }, 'config.streams.maxClients is not allowed');
  });

  it('an empty PORT or PARLEY_ADMIN_TOKEN counts as unset', () => {
    const config = loadConfig({ ...file(), PORT: '', PARLEY_ADMIN_TOKEN: '' });
    assert.equal(config.port, 9000);
    assert.equal(config.adminToken, undefined);
  });

  it('refuses a PORT that is not an integer from 0 to 65535', () => {
    for (const value of ['abc', '70000', '-1', '80.5']) {
      assert.throws(() => loadConfig({ PORT: value }), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.message, 'PORT must be an integer from 0 to 65535');
        return true;
      }, value);
    }
  });

  it('explicit overrides win over file and environment', () => {
    const config = loadConfig({ ...file(), PORT: '7001' }, { port: 0, dataDir: '/tmp/override' });
    assert.equal(config.port, 0);
    assert.equal(config.dataDir, '/tmp/override');
  });
});
