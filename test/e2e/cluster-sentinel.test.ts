import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RedisStorage } from '@parley/storage-redis';
import { SentinelSet } from '@parley/storage-redis/testing';
import { freePort, NodeProcess } from '@parley/testkit/host';
import { clusterLoad, createSandboxInstances, untilAllStored, type Instance } from '../support/cluster-load.js';

const TIMING = { leaseTtlMs: 8000, renewIntervalMs: 1000, driftMarginMs: 500 };

/**
 * Two nodes on Redis with Sentinel (a private master, two replicas and three sentinels): the master
 * is killed under send load. The nodes follow the failover by themselves and keep their instances,
 * every instance is served again within the bound docs/cluster.md gives, and every send answered
 * 200 is stored at both ends afterwards (each was confirmed by a replica before it was answered).
 */
describe('cluster: Redis master killed under load, with Sentinel', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-sentinel-'));
  let set: SentinelSet;
  let storage: RedisStorage;
  const nodes: NodeProcess[] = [];
  let instances: Instance[] = [];

  before(async () => {
    set = new SentinelSet(dir, {
      master: await freePort(), replicas: [await freePort(), await freePort()], sentinels: [await freePort(), await freePort(), await freePort()],
    });
    await set.start();
    const sentinel = { name: set.name, nodes: set.nodes };
    storage = new RedisStorage({ sentinel, keyPrefix: 'parley:', pingIntervalMs: 200 });
    await storage.init();
    for (const id of ['s1', 's2']) {
      nodes.push(await NodeProcess.start({
        // The URL's host is not used with sentinels: the master is the one they name.
        id, port: await freePort(), redisUrl: 'redis://unused:6379', keyPrefix: 'parley:', dir, cluster: TIMING,
        storage: { sentinel, pingIntervalMs: 200, commandTimeoutMs: 2000 },
      }));
    }
    instances = await createSandboxInstances(nodes[0]!, nodes, 4, '551197210000');
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
    await storage.close();
    await set.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows the failover: every instance served again within 15 s, no accepted send lost', { timeout: 120_000 }, async () => {
    const before = await storage.cluster().owners(instances.map((i) => i.id));
    const load = clusterLoad(instances, nodes);
    await new Promise((r) => setTimeout(r, 1000));
    const oldMaster = set.master.port;
    await set.master.kill();
    const killedAt = performance.now();
    const served = await load.untilEachServedAfter(instances, killedAt, 15_000);
    const results = await load.stop();
    assert.notEqual(await set.masterPort(), oldMaster, 'the sentinels promoted a replica');
    for (const node of nodes) assert.ok(node.logs('redis master moved; reconnecting to the new one').length > 0, `${node.id} followed the failover`);
    // What the failover cost: refusals that said nothing was done (503), that the outcome is unknown (502), or
    // that the channel took the send as storage went away (500 sent_not_recorded: it was sent, and its record
    // must be stored later like any accepted send's), nothing else.
    for (const failure of results.failures) {
      assert.match(failure, /: (503|502) |: 500 \{"status":500,"error":\{"code":"sent_not_recorded"/, failure);
      const sent = /^(\S+) via \S+: 500 .*"messageId":"(\w+)"/.exec(failure);
      if (sent) (results.accepted.get(sent[1]!) ?? results.accepted.set(sent[1]!, []).get(sent[1]!)!).push(sent[2]!);
    }
    const after = await storage.cluster().owners(instances.map((i) => i.id));
    assert.equal(after.size, instances.length, 'every instance has an owner');
    for (const instance of instances) assert.ok(after.get(instance.id)!.token >= before.get(instance.id)!.token, 'fencing tokens never went back');
    await untilAllStored(nodes[0]!, instances, results.accepted, load.peerOf);
    console.log(`served again after the master was killed (ms): ${[...served.values()].map((ms) => Math.round(ms)).join(', ')}; refused meanwhile: ${results.failures.length}`);
  });
});
