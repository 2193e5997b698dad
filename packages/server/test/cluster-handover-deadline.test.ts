import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterStore, InstanceRecord, Lease, Storage } from '@parley/core';
import { ClusterNode } from '../src/cluster/cluster-node.js';
import type { ClusterObserver } from '../src/cluster/cluster-observer.js';
import { registryHost } from '../src/cluster/cluster-setup.js';
import type { ClusterConfig } from '../src/config/cluster-config.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import type { InstanceRestorer } from '../src/instances/instance-restorer.js';
import { captureLogger } from './support.js';

/** Short leases: a lease whose renewals go unanswered reaches its local deadline 200 ms after the last renewal sent. */
const CONFIG: ClusterConfig = {
  nodeId: 'n1', advertiseUrl: 'http://127.0.0.1:1', secret: 'a-secret-of-16-chars', leaseTtlMs: 400, renewIntervalMs: 50,
  driftMarginMs: 200, handoverWaitMs: 1_000, movesPerMinute: 0, deadNodeRetentionMs: 60_000,
};
const observer: ClusterObserver = { leaseTaken() {}, leasesLost() {}, handedOver() {}, forwarded() {}, handoverWaited() {}, peerRefused() {} };

async function until(done: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = performance.now() + ms;
  while (!done()) {
    if (performance.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A lease store whose renewals the test makes answer "lost" or never answer (a silent Redis). */
function leaseStore(renewal: { mode: 'ok' | 'lost' | 'silent' }): ClusterStore {
  let token = 0;
  return {
    join: async () => true, heartbeat: async () => true, leave: async () => undefined, nodes: async () => [], prune: async () => false,
    acquire: async (instance: string, node: string): Promise<Lease> => ({ instance, node, token: ++token }),
    renew: (leases: Lease[]) => {
      if (renewal.mode === 'silent') return new Promise<string[]>(() => undefined);
      return Promise.resolve(renewal.mode === 'lost' ? leases.map((l) => l.instance) : []);
    },
    release: async () => undefined, owners: async () => new Map(), heldBy: async () => [], unowned: async () => [], offer: async () => undefined,
    requestMove: async () => undefined, movesFor: async () => new Map(), moveTarget: async () => undefined, forget: async () => undefined,
    firstToClaim: async () => true,
  };
}

/**
 * A graceful hand-over (a drain, a move, a shutdown) waits up to 10 s for the requests being served for an
 * instance before stopping it. Its lease must still bind meanwhile: lost, or past its deadline because the
 * renewals go unanswered, the instance stops at once — another node may already run it.
 */
describe('ClusterNode: a lease in a graceful hand-over still binds', () => {
  for (const mode of ['lost', 'silent'] as const) {
    it(`a renewal answering it ${mode === 'lost' ? 'lost' : 'never (its deadline passes)'} stops the instance during the hand-over's wait`, { timeout: 15_000 }, async () => {
      const renewal: { mode: 'ok' | 'lost' | 'silent' } = { mode: 'ok' };
      const { logger } = captureLogger('info');
      const node = new ClusterNode(leaseStore(renewal), CONFIG, { now: () => Date.now() }, logger, observer);
      const record = { id: 'ins_h', driver: 'sandbox', wantsConnection: false } as InstanceRecord;
      const storage = { instances: { get: async () => record } } as unknown as Storage;
      let stopped = false;
      const registry = { load: async () => ({ main: { capabilities: {} } }), handOver: async () => void (stopped = true) } as unknown as InstanceRegistry;
      const restorer: Pick<InstanceRestorer, 'throttle'> = { throttle: async (_driver, task) => task() };
      await node.join();
      node.start(registryHost(registry, storage, restorer, node, logger, { written: async () => undefined, endInstance: () => undefined }));
      let finish!: () => void;
      try {
        await node.claim('ins_h');
        assert.equal(await node.started('ins_h'), true);
        // A request is being served for the instance: the drain's hand-over waits for it (up to 10 s).
        node.serving('ins_h', (done) => (finish = done));
        const draining = node.setDraining(true);
        await until(() => !node.leases.has('ins_h'), 'the hand-over began');
        assert.equal(stopped, false, 'waiting for the request');
        renewal.mode = mode;
        await until(() => stopped, 'the instance is stopped while the hand-over still waits');
        finish();
        await draining;
      } finally {
        finish?.();
        await node.close();
      }
    });
  }
});
