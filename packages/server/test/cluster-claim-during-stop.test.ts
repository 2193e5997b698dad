import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterNode } from '../src/cluster/cluster-node.js';
import type { InstanceHost } from '../src/cluster/instance-host.js';
import { CONFIG, LeaseStore, observer, T } from './cluster-node-fakes.js';
import { captureLogger } from './support.js';

/**
 * A claim (a forwarded request, an orphan scan) whose acquire is still on its way to the store when the
 * node begins a graceful stop or a drain: the hand-over lists the leases it gives up at its start, so a
 * lease that arrives after it would never be given up. Seen on a rolling restart under load: the stopping
 * process started and connected the instance, then exited with its sandbox link never closed (and the
 * lease held by a process that is gone until it expired).
 */
describe('ClusterNode: a claim answered after a stop or a drain began', () => {
  for (const begin of ['close', 'drain'] as const) {
    it(`is given back, not started (${begin === 'close' ? 'graceful stop' : 'admin drain'})`, async () => {
      const leases = new LeaseStore();
      const { logger, lines } = captureLogger('info');
      const node = new ClusterNode(leases.store, CONFIG, { now: () => T }, logger, observer);
      const started: string[] = [];
      const host: InstanceHost = { start: async (id) => void started.push(id), stop: async () => undefined };
      let answer!: () => void;
      leases.gate = new Promise<void>((resolve) => (answer = resolve));
      await node.join();
      node.start(host);
      try {
        const claiming = node.claim('ins_c');
        // The acquire waits on the store; the stop (or the drain) runs its whole hand-over meanwhile.
        if (begin === 'close') await node.close();
        else await node.setDraining(true);
        answer();
        await assert.rejects(claiming, (err: { code?: string }) => err.code === 'instance_moving');
        await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(node.leases.size, 0, 'the lease is not held here');
        assert.equal(leases.held.has('ins_c'), false, 'the lease is released in the store: another node takes it at once');
        assert.deepEqual(started, [], 'the instance is not started on the stopping node');
        assert.ok(lines.some((l) => l.includes('lease given back unused') && l.includes('"leaving":true')), lines.join('\n'));
      } finally {
        answer();
        await node.close();
      }
    });
  }
});
