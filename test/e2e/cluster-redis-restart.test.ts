import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RedisStorage } from '@parley/storage-redis';
import { clusterLoad, createSandboxInstances, until, untilAllStored, type Instance } from '../support/cluster-load.js';
import { freePort, NodeProcess } from '@parley/testkit/host';
import { PrivateRedis } from '@parley/storage-redis/testing';

/**
 * Short leases keep the test short: a node stops what it owns 7.5 s after its last renewal. Not
 * shorter: the "short" outage (Redis stopped 1 s, started again, the nodes reconnecting) outlasted a
 * 3.5 s deadline in 3 of 12 runs on a 2-core machine with a load average of 12-17.
 */
const TIMING = { leaseTtlMs: 8000, renewIntervalMs: 1000, driftMarginMs: 500 };

/**
 * Two nodes on a private `redis-server` (AOF, a free port) that the test stops and starts: after a
 * short outage the owners keep their instances; after one longer than a lease they stop them, and
 * once Redis is back the nodes take them again by themselves. No accepted send is lost either way.
 */
describe('cluster: Redis restarted under load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-redis-'));
  let redis: PrivateRedis;
  let storage: RedisStorage;
  const nodes: NodeProcess[] = [];
  let instances: Instance[] = [];

  const owners = async () => new Map([...(await storage.cluster().owners(instances.map((i) => i.id)))].map(([id, l]) => [id, l.node]));
  const restart = async (downMs: number) => {
    await redis.stop();
    await new Promise((r) => setTimeout(r, downMs));
    await redis.start();
    return performance.now();
  };
  before(async () => {
    redis = new PrivateRedis(await freePort(), dir);
    await redis.start();
    storage = new RedisStorage({ url: redis.url, keyPrefix: 'parley:' });
    await storage.init();
    for (const id of ['r1', 'r2']) {
      nodes.push(await NodeProcess.start({ id, port: await freePort(), redisUrl: redis.url, keyPrefix: 'parley:', dir, cluster: TIMING }));
    }
    instances = await createSandboxInstances(nodes[0]!, nodes, 4, '551197200000');
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
    await storage.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a short outage: the owners keep their instances and serve again once Redis is back', async () => {
    const before = await owners();
    const load = clusterLoad(instances, nodes);
    await new Promise((r) => setTimeout(r, 300));
    const back = await restart(1000);
    await load.untilEachServedAfter(instances, back, 15_000);
    const results = await load.stop();
    assert.deepEqual(await owners(), before, 'no instance changed owner');
    for (const n of nodes) assert.equal(n.logs('lease could not be renewed in time; instance stopped on this node').length, 0);
    await untilAllStored(nodes[0]!, instances, results.accepted, load.peerOf);
  });

  it('an outage longer than a lease: the owners stop their instances, and the nodes take them again by themselves', async () => {
    const tokens = await storage.cluster().owners(instances.map((i) => i.id));
    const load = clusterLoad(instances, nodes);
    await new Promise((r) => setTimeout(r, 300));
    const back = await restart(TIMING.leaseTtlMs + 1500);
    const stopped = nodes.flatMap((n) => n.logs('lease could not be renewed in time; instance stopped on this node').map((l) => l.instance as string));
    assert.deepEqual(new Set(stopped), new Set(instances.map((i) => i.id)), 'every owner stopped its instances before its lease could expire');
    await load.untilEachServedAfter(instances, back, 20_000);
    const results = await load.stop();
    // A rebalance may have an instance between two nodes for a moment: wait until each has its owner.
    await until(async () => (await storage.cluster().owners(instances.map((i) => i.id))).size === instances.length, 'every instance has an owner');
    const after = await storage.cluster().owners(instances.map((i) => i.id));
    for (const instance of instances) assert.ok(after.get(instance.id)!.token > tokens.get(instance.id)!.token, 'taken again with a new fencing token');
    await untilAllStored(nodes[0]!, instances, results.accepted, load.peerOf);
  });
});
