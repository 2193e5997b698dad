import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ParleyServer } from '../src/app/parley-server.js';
import { ConfigError, loadConfig } from '../src/config/config.js';
import { silentLogger } from './support.js';

const CLUSTER_ENV = { PARLEY_NODE_ID: 'n1', PARLEY_ADVERTISE_URL: 'http://10.0.0.5:8080', PARLEY_CLUSTER_SECRET: 'a-secret-of-16-chars-or-more' };

describe('cluster configuration', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-cluster-config-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const fails = (env: NodeJS.ProcessEnv, message: RegExp) => assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && message.test(err.message));

  it('runs without a cluster unless one is configured', () => {
    assert.equal(loadConfig({}).cluster, undefined);
  });

  it('reads the node id, address and secret from the environment, with the timing defaults', () => {
    assert.deepEqual(loadConfig(CLUSTER_ENV).cluster, {
      nodeId: 'n1', advertiseUrl: 'http://10.0.0.5:8080', secret: 'a-secret-of-16-chars-or-more',
      leaseTtlMs: 8000, renewIntervalMs: 2000, driftMarginMs: 1000, handoverWaitMs: 20000, movesPerMinute: 30, deadNodeRetentionMs: 300_000,
    });
  });

  it('names the field of every bad or missing setting', () => {
    fails({ ...CLUSTER_ENV, PARLEY_ADVERTISE_URL: '' }, /^cluster\.advertiseUrl \(PARLEY_ADVERTISE_URL\) is required/);
    fails({ PARLEY_NODE_ID: 'n1' }, /^cluster\.advertiseUrl \(PARLEY_ADVERTISE_URL\) is required/);
    fails({ PARLEY_ADVERTISE_URL: 'http://a:1', PARLEY_CLUSTER_SECRET: 'x'.repeat(16) }, /^cluster\.nodeId \(PARLEY_NODE_ID\) is required/);
    fails({ ...CLUSTER_ENV, PARLEY_CLUSTER_SECRET: '' }, /^cluster\.secret \(PARLEY_CLUSTER_SECRET\) is required/);
    fails({ ...CLUSTER_ENV, PARLEY_NODE_ID: 'bad id!' }, /^cluster\.nodeId \(PARLEY_NODE_ID\) must be/);
    fails({ ...CLUSTER_ENV, PARLEY_ADVERTISE_URL: 'ftp://x' }, /^cluster\.advertiseUrl \(PARLEY_ADVERTISE_URL\) must be an http\(s\) origin/);
    fails({ ...CLUSTER_ENV, PARLEY_CLUSTER_SECRET: 'short' }, /^cluster\.secret \(PARLEY_CLUSTER_SECRET\) must be at least 16 characters/);
    const path = join(dir, 'timing.json');
    writeFileSync(path, JSON.stringify({ cluster: { leaseTtlMs: 4000, renewIntervalMs: 2000 } }));
    fails({ ...CLUSTER_ENV, PARLEY_CONFIG: path }, /^cluster\.leaseTtlMs \(4000\) must exceed 2 × cluster\.renewIntervalMs \+ cluster\.driftMarginMs \(5000\)/);
    writeFileSync(path, JSON.stringify({ cluster: { nodeId: 'n1', leaseTtl: 1 } }));
    fails({ PARLEY_CONFIG: path }, /config\.cluster\.leaseTtl is not allowed/);
  });

  for (const storage of ['@parley/storage-sqlite', '@parley/storage-memory']) {
    it(`refuses a cluster on ${storage} at start-up, naming the field`, async () => {
      const config = loadConfig({ ...CLUSTER_ENV, PARLEY_DATA_DIR: join(dir, storage.split('-')[1]!), PARLEY_ADMIN_TOKEN: 'admin-token-0123456789' });
      config.plugins = [{ package: storage }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }];
      await assert.rejects(ParleyServer.create({ config, logger: silentLogger() }), (err: unknown) =>
        err instanceof ConfigError && /^cluster\.nodeId \(PARLEY_NODE_ID\) is set, but the storage back end "(sqlite|memory)" cannot run a cluster/.test(err.message));
    });
  }

  it('loads the per-node configs of examples/cluster', () => {
    for (const n of [1, 2, 3]) {
      const config = loadConfig({ PARLEY_CONFIG: new URL(`../../../../examples/cluster/node${n}.json`, import.meta.url).pathname });
      assert.equal(config.cluster?.nodeId, `node${n}`);
      assert.equal(config.cluster?.advertiseUrl, `http://127.0.0.1:808${n}`);
    }
  });

  it('refuses a cluster node without a shared admin token', async () => {
    const config = loadConfig({ ...CLUSTER_ENV, PARLEY_DATA_DIR: join(dir, 'token') });
    config.plugins = [{ package: '@parley/storage-redis', options: { url: 'redis://127.0.0.1:1' } }, { package: '@parley/channel-sandbox' }];
    await assert.rejects(ParleyServer.create({ config, logger: silentLogger() }), (err: unknown) =>
      err instanceof ConfigError && /needs PARLEY_ADMIN_TOKEN, the same on every node/.test(err.message));
  });
});
