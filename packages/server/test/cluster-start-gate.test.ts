import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InstanceRecord, Storage } from '@parley/core';
import { ClusterNode } from '../src/cluster/cluster-node.js';
import { registryHost } from '../src/cluster/cluster-setup.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import type { InstanceRestorer } from '../src/instances/instance-restorer.js';
import { CONFIG, LeaseStore, observer, T, until } from './cluster-node-fakes.js';
import { captureLogger } from './support.js';

/** One loaded runtime whose connection counts its connects (a second one opens a second session). */
interface Runtime {
  connects: number;
  stopped: boolean;
  main: { capabilities: { connection: { connect(): Promise<void> } } };
}

/** The registry's load and hand-over semantics: concurrent loads of an instance share one runtime; a hand-over stops and forgets it. */
function registryOf(runtimes: Runtime[], connecting: () => Promise<void> = async () => undefined): InstanceRegistry {
  let loaded: Promise<Runtime> | undefined;
  return {
    load: () => (loaded ??= Promise.resolve().then(() => {
      const runtime: Runtime = {
        connects: 0, stopped: false, main: { capabilities: { connection: { connect: async () => { runtime.connects++; await connecting(); } } } },
      };
      runtimes.push(runtime);
      return runtime;
    })),
    handOver: async () => {
      const runtime = await loaded;
      loaded = undefined;
      if (runtime) runtime.stopped = true;
    },
  } as unknown as InstanceRegistry;
}

describe('ClusterNode: one start of an instance at a time', () => {
  it('a start held up past the loss of its lease does not connect the instance the node took again meanwhile; the new lease\'s start does, once', async () => {
    const leases = new LeaseStore();
    const { logger, lines } = captureLogger('info');
    const node = new ClusterNode(leases.store, CONFIG, { now: () => T }, logger, observer);
    const record = { id: 'ins_a', driver: 'sandbox', wantsConnection: true } as InstanceRecord;
    const storage = { instances: { get: async () => record } } as unknown as Storage;
    // The restorer's queue holds the first start (its driver's rate, or a storage read hanging in a partition) until the test opens it.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let queued = 0;
    const restorer: Pick<InstanceRestorer, 'throttle'> = {
      throttle: async (_driver, task) => {
        queued++;
        await gate;
        return task();
      },
    };
    const runtimes: Runtime[] = [];
    const streams = { written: async () => undefined, endInstance: () => undefined };
    await node.join();
    node.start(registryHost(registryOf(runtimes), storage, restorer, node, logger, streams));
    try {
      await node.claim('ins_a');
      await until(() => queued === 1, 'the first start waits for its turn');
      // Its lease expires in Redis (renewals unanswered); a renewal answers it lost and the node stops the instance.
      leases.expire.add('ins_a');
      await until(() => !node.leases.has('ins_a') && node.leases.size === 0, 'the lost lease is given up');
      // A request (or the orphan scan) takes the instance again: a new lease, a new start.
      await node.claim('ins_a');
      assert.ok(node.leases.has('ins_a'), 'the node holds the new lease');
      open();
      assert.equal(await node.started('ins_a'), true, 'the instance runs here under the new lease');
      await until(() => queued === 2, 'both starts had their turn');
      await new Promise((resolve) => setImmediate(resolve));
      const connects = runtimes.filter((r) => !r.stopped).reduce((n, r) => n + r.connects, 0);
      assert.equal(connects, 1, `one live connection of the instance on this node (connects per runtime: ${runtimes.map((r) => r.connects).join(', ')})`);
      assert.equal(lines.filter((l) => l.includes('instance started on this node')).length, 1, 'started once');
    } finally {
      open();
      await node.close();
    }
  });

  it('a lease lost while the instance\'s connect hangs (storage not answering) stops the instance at once, not after the connect', async () => {
    const leases = new LeaseStore();
    const { logger } = captureLogger('info');
    const node = new ClusterNode(leases.store, CONFIG, { now: () => T }, logger, observer);
    const record = { id: 'ins_b', driver: 'sandbox', wantsConnection: true } as InstanceRecord;
    const storage = { instances: { get: async () => record } } as unknown as Storage;
    let answer!: () => void;
    const hanging = new Promise<void>((resolve) => (answer = resolve));
    const restorer: Pick<InstanceRestorer, 'throttle'> = { throttle: async (_driver, task) => task() };
    const runtimes: Runtime[] = [];
    const streams = { written: async () => undefined, endInstance: () => undefined };
    await node.join();
    node.start(registryHost(registryOf(runtimes, () => hanging), storage, restorer, node, logger, streams));
    try {
      await node.claim('ins_b');
      await until(() => runtimes[0]?.connects === 1, 'the connect is under way');
      leases.expire.add('ins_b');
      await until(() => runtimes[0]!.stopped, 'the adapters are stopped while the connect still hangs');
      assert.equal(node.leases.has('ins_b'), false);
    } finally {
      answer();
      await node.close();
    }
  });
});

describe('ClusterNode: taking a lease over', () => {
  it('gives a lease up, unused, when taking over the previous owner\'s work outlasted its deadline', async () => {
    const leases = new LeaseStore();
    const { logger, lines } = captureLogger('info');
    const node = new ClusterNode(leases.store, { ...CONFIG, leaseTtlMs: 300, driftMarginMs: 100 }, { now: () => T }, logger, observer);
    const started: string[] = [];
    let slow = true;
    await node.join();
    node.start({
      start: async (id) => void started.push(id),
      stop: async () => undefined,
      takeOver: async () => {
        if (slow) await new Promise((resolve) => setTimeout(resolve, 250));
      },
    });
    try {
      await assert.rejects(node.claim('ins_c'), (err: Error & { code?: string }) => err.code === 'instance_moving');
      assert.equal(node.leases.has('ins_c'), false, 'not counted');
      assert.equal(leases.held.has('ins_c'), false, 'released at once for another node');
      assert.ok(!lines.some((l) => l.includes('instance lease taken')));
      slow = false;
      await node.claim('ins_c');
      assert.ok(node.leases.has('ins_c'), 'a take-over within the deadline counts');
    } finally {
      await node.close();
    }
  });
});

describe('ClusterNode: reading the registry', () => {
  it('answers at once while the node events of an earlier read still wait on the store, and tells them one read at a time', { timeout: 10_000 }, async () => {
    const leases = new LeaseStore();
    const { logger } = captureLogger('info');
    const node = new ClusterNode(leases.store, CONFIG, { now: () => T }, logger, observer);
    let answer!: () => void;
    const silent = new Promise<void>((resolve) => (answer = resolve));
    let told = 0;
    node.watchNodes = async () => {
      told++;
      await silent;
    };
    await node.join();
    try {
      assert.deepEqual(await node.refreshNodes(), []);
      assert.deepEqual(await node.refreshNodes(), [], 'a second read is not held by the first one\'s node events');
      assert.equal(told, 1, 'one read told at a time');
      answer();
      await until(() => told === 1, 'settled');
      await new Promise((resolve) => setImmediate(resolve));
      await node.refreshNodes();
      assert.equal(told, 2, 'the next read is told once the earlier one is done');
    } finally {
      answer();
      await node.close();
    }
  });
});
