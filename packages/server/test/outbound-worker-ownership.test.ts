import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Logger } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import type { EventBus } from '../src/events/event-bus.js';
import { InstanceMovingError } from '../src/cluster/instance-moving.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import { instanceNotFound } from '../src/instances/instance-runtime.js';
import { OutboundWorker } from '../src/send/outbound-worker.js';
import { Pacer } from '../src/send/pacer.js';
import type { PacingPolicies } from '../src/send/pacing-policies.js';

const T = Date.UTC(2030, 0, 1, 12);
const RECHECK_MS = 1_000;
const LEASE_MS = 60_000;
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as unknown as Logger;

/** Waits (bounded) until `done` holds. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not met in 2 s');
}

/** A worker over `storage` whose registry and ownership are the test's (bus and policies are never reached). */
function workerOf(storage: MemoryStorage, registry: InstanceRegistry, owns: (instance: string) => boolean): OutboundWorker {
  return new OutboundWorker({
    storage, registry, clock: { now: () => T }, logger: silent, policies: {} as PacingPolicies, pacer: new Pacer(),
    bus: {} as EventBus, options: { leaseMs: LEASE_MS, recheckMs: RECHECK_MS, concurrency: 4 },
    owns,
  });
}

describe('OutboundWorker in a cluster', () => {
  it('handles only sends of instances this node owns; the others go back to the queue, held for a recheck', async () => {
    const storage = new MemoryStorage({ now: () => T });
    await storage.init();
    const looked: string[] = [];
    // The registry answers no instance: a send the worker takes up for an owned instance is then dropped
    // (the instance was deleted), which shows that the worker handled it.
    const registry = {
      byIdOrThrow: async (id: string) => {
        looked.push(id);
        throw instanceNotFound();
      },
    } as unknown as InstanceRegistry;
    const worker = workerOf(storage, registry, (instance) => instance === 'mine');
    for (const instance of ['mine', 'theirs']) {
      await storage.outbound.enqueue({ id: `m-${instance}`, instance, lane: 'a', dueAt: T, createdAt: T, payload: '{}' }, 10);
    }
    worker.start();
    try {
      await until(async () => (await storage.outbound.get('mine', 'm-mine')) === null
        && (await storage.outbound.get('theirs', 'm-theirs'))?.dueAt === T + RECHECK_MS);
    } finally {
      await worker.stop();
    }
    assert.deepEqual(looked, ['mine'], 'the instance owned elsewhere is never loaded on this node');
    const theirs = await storage.outbound.get('theirs', 'm-theirs');
    assert.ok(theirs, 'the other node\'s send stays queued');
    assert.equal(theirs.leasedUntil, undefined, 'released: its owner can claim it');
    assert.equal(theirs.attempts, 0, 'handing it back is no failed attempt');
    assert.equal(theirs.order, T, 'it keeps its place in its lane');
    await storage.close();
  });
  for (const { when, failure, losesLease } of [
    { when: 'the node loses the instance\'s lease', failure: (id: string) => new InstanceMovingError(id), losesLease: true },
    { when: 'storage does not answer', failure: () => new Error('Command timed out'), losesLease: false },
  ]) {
    it(`a send is not dropped when ${when} between its ownership check and loading its instance`, async () => {
      const storage = new MemoryStorage({ now: () => T });
      await storage.init();
      // Owned when the worker takes the send up; loading the instance then fails. Losing the lease at
      // that moment is what a deadline stop or a move does while the worker reads the send's record.
      let owned = true;
      let loads = 0;
      const registry = {
        byIdOrThrow: async (id: string) => {
          loads++;
          if (losesLease) owned = false;
          throw failure(id);
        },
      } as unknown as InstanceRegistry;
      const worker = workerOf(storage, registry, () => owned);
      await storage.outbound.enqueue({ id: 'm1', instance: 'i1', lane: 'a', dueAt: T, createdAt: T, payload: '{}' }, 10);
      worker.start();
      try {
        await until(async () => loads > 0);
      } finally {
        await worker.stop();
      }
      const left = await storage.outbound.get('i1', 'm1');
      assert.ok(left, 'the send is still in the queue (before: completed unsent, as if its instance had been deleted)');
      assert.equal(left.leasedUntil, T + LEASE_MS, 'left leased: the instance\'s new owner takes it over, or it is claimed again when the lease expires');
      assert.equal(left.attempts, 0, 'no attempt was made');
      assert.equal(await storage.messages.get('i1', 'm1'), null, 'nothing was sent or stored');
      // What the instance's next owner does when it takes the lease.
      assert.equal(await workerOf(storage, registry, () => true).takeOver('i1'), 1);
      assert.equal((await storage.outbound.get('i1', 'm1'))?.leasedUntil, undefined, 'released for the new owner\'s worker');
      await storage.close();
    });
  }
});
