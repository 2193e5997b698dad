import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OutcomeUnknownError, ServiceUnavailableError, defaultInstanceFlags, defaultWebhookSettings, type InstanceRecord } from '@parley/core';
import { TcpProxy, eventually, freePort } from '@parley/testkit';
import { RedisStorage, redisOptionsSchema, resolveRedisOptions } from '../src/index.js';
import { SentinelSet, type SentinelPorts } from '../src/testing/index.js';

function instance(id: string): InstanceRecord {
  return {
    id, key: `key_${id}_secret`, name: id, driver: 'sandbox', createdAt: 1_700_000_000_000,
    flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(), webhookSecret: 'whsec_x', user: null,
    phoneConnected: false, wantsConnection: true, health: 'healthy', driverOptions: {}, links: {},
  };
}

async function ports(): Promise<SentinelPorts> {
  return { master: await freePort(), replicas: [await freePort()], sentinels: [await freePort(), await freePort(), await freePort()] };
}

/** Until `read` answers without a 503 (the storage found the new master), bounded. */
async function afterFailover<T>(read: () => Promise<T>): Promise<T> {
  let value: T | undefined;
  const found = await eventually(async () => {
    try {
      value = await read();
      return true;
    } catch (err) {
      if (err instanceof ServiceUnavailableError) return false;
      throw err;
    }
  }, 300, 100);
  assert.ok(found, 'the storage did not reach the new master within 30 s');
  return value!;
}

describe('@parley/storage-redis options for Sentinel', () => {
  it('waits for one replica by default with sentinels and for none without', () => {
    const sentinel = { name: 'm', nodes: ['10.0.0.1:26379'] };
    assert.equal(resolveRedisOptions({}, {}).waitReplicas, 0);
    assert.equal(resolveRedisOptions({ sentinel }, {}).waitReplicas, 1);
    assert.equal(resolveRedisOptions({ sentinel }, {}).waitTimeoutMs, 1000);
    assert.equal(resolveRedisOptions({ commandTimeoutMs: 600 }, {}).waitTimeoutMs, 300);
    assert.throws(() => resolveRedisOptions({ waitTimeoutMs: 5000, commandTimeoutMs: 5000 }, {}), /waitTimeoutMs \(5000\) must be less than commandTimeoutMs/);
  });

  it('describes the nodes as host:port in its schema', () => {
    const nodes = (redisOptionsSchema.properties.sentinel.properties.nodes.items as { pattern: string }).pattern;
    for (const good of ['127.0.0.1:26379', 'sentinel-1.internal:26379', '[::1]:26379']) assert.match(good, new RegExp(nodes));
    for (const bad of ['127.0.0.1', ':26379', 'a b:1', '::1:26379']) assert.doesNotMatch(bad, new RegExp(nodes));
  });
});

describe('@parley/storage-redis with Redis Sentinel (a private master, replica and three sentinels)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parley-sentinel-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('follows a failover: reads, writes and subscriptions reach the promoted replica with confirmed data intact', { timeout: 90_000 }, async () => {
    const set = new SentinelSet(join(dir, 'failover'), await ports());
    await set.start();
    const storage = new RedisStorage({ sentinel: { name: set.name, nodes: set.nodes }, keyPrefix: 'parley:', commandTimeoutMs: 2_000, pingIntervalMs: 200 });
    try {
      await storage.init();
      assert.match(storage.location, new RegExp(`^sentinel master ${set.name} via 127\\.0\\.0\\.1:`));
      await storage.instances.create(instance('ins_before'));
      await storage.flush(); // confirmed by the replica
      const heard: string[] = [];
      await storage.signals().subscribe('failover', (message) => heard.push(message));

      const oldMaster = set.master.port;
      await set.master.kill();
      assert.equal((await afterFailover(() => storage.instances.get('ins_before')))?.id, 'ins_before');
      assert.notEqual(await set.masterPort(), oldMaster);
      await afterFailover(() => storage.instances.create(instance('ins_after')));
      assert.equal((await storage.instances.get('ins_after'))?.id, 'ins_after');
      // The promoted replica has no replica of its own: no write can be confirmed until one comes back.
      await assert.rejects(storage.flush(), OutcomeUnknownError);
      await set.master.start(); // the sentinels make the old master a replica of the new one
      assert.ok(await eventually(() => storage.flush().then(() => true, () => false), 300, 100), 'writes were never confirmed again');
      assert.deepEqual(await storage.health(), { ready: true });
      // The subscriber moved to the new master too.
      assert.ok(await eventually(async () => {
        await storage.signals().publish('failover', 'after');
        return heard.includes('after');
      }, 100, 100), 'a message published after the failover was never heard');
    } finally {
      await storage.close();
      await set.stop();
    }
  });

  it('answers a flush whose writes no replica confirmed with 502 outcome_unknown: exactly those are what a failover loses', { timeout: 90_000 }, async () => {
    const p = await ports();
    // The replica reaches its master through a proxy the test can silence.
    const link = new TcpProxy('127.0.0.1', p.master);
    await link.start();
    const set = new SentinelSet(join(dir, 'unconfirmed'), p, link.port);
    await set.start();
    const storage = new RedisStorage({
      sentinel: { name: set.name, nodes: set.nodes }, keyPrefix: 'parley:', commandTimeoutMs: 2_000, pingIntervalMs: 200, waitTimeoutMs: 300,
    });
    try {
      await storage.init();
      await storage.instances.create(instance('ins_confirmed'));
      await storage.flush();

      link.blackhole();
      await storage.instances.create(instance('ins_unconfirmed'));
      await assert.rejects(storage.flush(), (err: unknown) => {
        assert.ok(err instanceof OutcomeUnknownError);
        assert.equal(err.status, 502);
        assert.deepEqual(err.details, { reason: 'not_replicated', safeRetry: 'Idempotency-Key' });
        return true;
      });

      await set.master.kill();
      assert.equal((await afterFailover(() => storage.instances.get('ins_confirmed')))?.id, 'ins_confirmed');
      // What the answer said may be lost is lost; what it confirmed is not.
      assert.equal(await storage.instances.get('ins_unconfirmed'), null);
    } finally {
      await storage.close();
      await set.stop();
      await link.cut();
    }
  });

  it('fails start-up with a clear 503 when no sentinel answers', async () => {
    const storage = new RedisStorage({ sentinel: { name: 'nobody', nodes: ['127.0.0.1:1'] }, connectAttempts: 1, commandTimeoutMs: 500 });
    await assert.rejects(storage.init(), (err: unknown) => {
      assert.ok(err instanceof ServiceUnavailableError);
      assert.match(err.message, /^cannot connect to redis master nobody \(sentinels 127\.0\.0\.1:1\): no sentinel names the redis master nobody \(127\.0\.0\.1:1: /);
      return true;
    });
    await storage.close();
  });
});
