import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TcpProxy } from '@parley/testkit';
import { freePort, NodeProcess } from '@parley/testkit/host';
import { clusterLoad, createSandboxInstances, tearDownCluster, until, untilAllStored, type Instance } from '../support/cluster-load.js';
import { assertDeadlineStopsBeforeTakes, assertOneLinkAtATime } from '../support/cluster-invariants.js';
import { clusterBackends, openClusterBackend, redisClusterBackend, type ClusterBackend, type ClusterBackendName } from '../support/cluster-backends.js';
import { PrivateRedis } from '@parley/storage-redis/testing';

/**
 * Short leases keep ten partitions short: an owner whose renewals go unanswered stops 2 s after the last
 * one was sent at most. The default margin (1 s): the guarantee excludes event loops blocked longer than it.
 */
const TIMING = { leaseTtlMs: 3000, renewIntervalMs: 600, driftMarginMs: 1000 };
/**
 * Node 3's storage: a command time-out longer than the drift margin, as the defaults have (5 s and 1 s),
 * so only a deadline timer — not a check between storage calls — stops its instances in time.
 */
const PARTITIONED_STORAGE: Record<ClusterBackendName, Record<string, unknown>> = {
  redis: { commandTimeoutMs: 2000, pingIntervalMs: 250 },
  postgres: { commandTimeoutMs: 2000 },
};
const PARTITIONS = 10;
/**
 * That node 3 replaced its connections that went silent, once the partitions are over: on Redis each
 * partition finds its connection dead (logged each time); on PostgreSQL the listening connection is
 * lost, and may still be reconnecting (with back-off) when the next partition begins, so every loss is
 * followed by a restoration.
 */
const REPLACED: Record<ClusterBackendName, (n3: NodeProcess) => Promise<void>> = {
  redis: async (n3) => {
    assert.ok(n3.logs('redis connection stopped answering; opening a new one').length >= PARTITIONS, 'node 3 replaced its dead connection each time');
  },
  postgres: (n3) => until(async () => {
    const lost = n3.logs('postgres signals connection lost; reconnecting').length;
    return lost >= 1 && n3.logs('postgres signals connection restored').length === lost;
  }, 'node 3 listened again after every loss of its signals connection', 15_000),
};
/** Longer than a lease: the other nodes take node 3's instances while it is cut off. */
const PARTITION_MS = 4000;
/** The nodes' `shutdownTimeoutMs` (the default). */
const SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * Three nodes on a private `redis-server`, and again on a database of their own on the machine's
 * PostgreSQL; node 3 reaches the store through a TCP proxy that blackholes the
 * link (sockets stay open, every byte is dropped) ten times under send load. Node 3 must stop its
 * instances at their lease deadline although its storage calls hang, the others take them, and no
 * instance ever has two owners — by fencing tokens and by the sandbox's record of phone links. After
 * each partition node 3 replaces its dead connections and serves again without a restart; a SIGTERM
 * with its link blackholed still ends it in time.
 */
for (const backendName of clusterBackends('cluster partition')) describe(`cluster: a node whose ${backendName} link is blackholed`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-partition-'));
  let redis: PrivateRedis | undefined;
  let proxy: TcpProxy;
  let backend: ClusterBackend;
  const nodes = new Map<string, NodeProcess>();
  let instances: Instance[] = [];
  const node = (id: string) => nodes.get(id)!;
  const owners = async () => new Map([...(await backend.cluster.owners(instances.map((i) => i.id)))].map(([id, lease]) => [id, lease.node]));

  before(async () => {
    if (backendName === 'redis') {
      redis = new PrivateRedis(await freePort(), dir);
      await redis.start();
      backend = await redisClusterBackend(redis.url, 'parley:');
    } else {
      backend = await openClusterBackend(backendName, 'partition');
    }
    proxy = new TcpProxy(backend.upstream.host, backend.upstream.port);
    await proxy.start();
    for (const id of ['n1', 'n2', 'n3']) {
      const storage = id === 'n3' ? backend.through(proxy.port) : backend.node;
      nodes.set(id, NodeProcess.launch({ id, port: await freePort(), ...storage, dir, cluster: TIMING, ...(id === 'n3' ? { storage: PARTITIONED_STORAGE[backendName] } : {}) }));
    }
    await Promise.all([...nodes.values()].map((n) => n.ready()));
    instances = await createSandboxInstances(node('n1'), [node('n1'), node('n2')], 6, '551197300000');
  });

  after(async () => {
    await tearDownCluster({ nodes: nodes.values(), closers: [backend, proxy && { close: () => proxy.cut() }], dir });
    await redis?.stop();
  });

  /** Moves instances to node 3 (through node 1) until it owns two. */
  const twoOnNode3 = () => until(async () => {
    const owned = await owners();
    const there = instances.filter((i) => owned.get(i.id) === 'n3');
    if (there.length >= 2) return true;
    for (const i of instances.filter((x) => owned.has(x.id) && owned.get(x.id) !== 'n3').slice(0, 2 - there.length)) {
      await node('n1').request('POST', `/admin/instances/${i.id}/move`, { node: 'n3' }, {}, true);
    }
    return false;
  }, 'node 3 owns two instances', 20_000);

  it(`${PARTITIONS} blackhole partitions under load: node 3 stops at its deadlines, never two owners, and it serves again after each`, { timeout: 110_000 }, async () => {
    const load = clusterLoad(instances, [node('n1'), node('n2')]);
    try {
      for (let round = 0; round < PARTITIONS; round++) {
        await twoOnNode3();
        proxy.blackhole();
        await new Promise((r) => setTimeout(r, PARTITION_MS));
        await proxy.pass();
        // Its connections were dead (answers dropped): it must replace them, not wait for a restart.
        await until(async () => (await fetch(`${node('n3').url}/readyz`)).status === 200, `node 3 ready again after partition ${round + 1}`, 15_000);
      }
    } finally {
      await load.stop();
    }
    const results = await load.stop();
    const stops = assertDeadlineStopsBeforeTakes([...nodes.values()], instances.map((i) => i.id));
    assert.ok(stops >= PARTITIONS, `node 3 stopped instances at their deadline in every partition (${stops} stops)`);
    await REPLACED[backendName](node('n3'));
    // The link record of a phone node 3 stopped is closed once the store answers again (written late, dated when it went offline).
    let last: unknown;
    await until(async () => {
      try {
        await assertOneLinkAtATime(backend.storage, instances.map((i) => i.number), [...nodes.values()], []);
        return true;
      } catch (err) {
        last = err;
        return false;
      }
    }, 'no phone has two live links at once', 20_000).catch(() => {
      // Outside the guarantee (docs/cluster.md): an event loop blocked longer than the margin; said so, to tell it from a defect.
      const late = node('n3').logs('lease deadline timer fired late: the event loop was blocked').map((l) => `${l.time} ${l.lateMs} ms late`);
      assert.fail(`${String(last)}${late.length ? `\nnode 3's deadline timer fired late: ${late.join(', ')}` : ''}`);
    });
    await untilAllStored(node('n1'), instances, results.accepted, load.peerOf);
  });

  it('SIGTERM while its store link is blackholed: the node exits 0 within shutdownTimeoutMs', { timeout: 60_000 }, async () => {
    await twoOnNode3();
    proxy.blackhole();
    const started = performance.now();
    const exit = await node('n3').stop('SIGTERM');
    const tookMs = performance.now() - started;
    assert.equal(exit, 0, node('n3').lines.slice(-5).join('\n'));
    const stopping = node('n3').lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { time: string; msg: string })
      .filter((l, i, all) => i >= all.findIndex((x) => x.msg === 'shutting down')).map((l) => `${l.time.slice(11)} ${l.msg}`);
    assert.ok(tookMs < SHUTDOWN_TIMEOUT_MS, `exited after ${Math.round(tookMs)} ms:\n${stopping.join('\n')}`);
  });
});
