import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NotFoundError, type Logger } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import type { EventBus } from '../src/events/event-bus.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import { OutboundWorker } from '../src/send/outbound-worker.js';
import { Pacer } from '../src/send/pacer.js';
import type { PacingPolicies } from '../src/send/pacing-policies.js';
import type { SendProjection } from '../src/send/send-projection.js';

const T = Date.UTC(2030, 0, 1, 12);
const RECHECK_MS = 1_000;
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as unknown as Logger;

/** Waits (bounded) until `done` holds. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not met in 2 s');
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
        throw new NotFoundError(`instance ${id}`);
      },
    } as unknown as InstanceRegistry;
    const worker = new OutboundWorker({
      storage, registry, clock: { now: () => T }, logger: silent, policies: {} as PacingPolicies, pacer: new Pacer(),
      projection: {} as SendProjection, bus: {} as EventBus, options: { leaseMs: 60_000, recheckMs: RECHECK_MS, concurrency: 4 },
      owns: (instance) => instance === 'mine',
    });
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
});
