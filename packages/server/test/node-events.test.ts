import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeRecord, StorageSignals } from '@parley/core';
import { NodeEvents } from '../src/cluster/node-events.js';
import { silentLogger } from './support.js';

const T = Date.UTC(2030, 0, 1, 12);

/** Pub/sub as Redis gives it: every subscriber of a topic hears each message, the publisher's own included. */
function signalsOf(): StorageSignals {
  const listeners = new Map<string, Set<(message: string) => void>>();
  return {
    publish: async (topic, message) => {
      const heard = [...(listeners.get(topic) ?? [])];
      for (const listener of heard) listener(message);
      return heard.length;
    },
    subscribe: async (topic, listener) => {
      if (!listeners.has(topic)) listeners.set(topic, new Set());
      listeners.get(topic)!.add(listener);
      return async () => void listeners.get(topic)!.delete(listener);
    },
    onReconnect: () => () => undefined,
  } as StorageSignals;
}

const record = (id: string, alive: boolean, lastHeartbeat: number): NodeRecord =>
  ({ id, address: `http://127.0.0.1:1/${id}`, incarnation: `${id}-1`, startedAt: T, load: 0, draining: false, alive, lastHeartbeat });

describe('NodeEvents', () => {
  it('a node registering, dying, heartbeating again and dying again: each change announced once, and reaching every node\'s admin streams once', async () => {
    const signals = signalsOf();
    const claimed = new Set<string>();
    const store = { firstToClaim: async (key: string) => !claimed.has(key) && Boolean(claimed.add(key)) };
    const heard = new Map<string, string[]>();
    const nodes = ['n1', 'n2'].map((id) => {
      heard.set(id, []);
      const hub = { noticeAdmin: (kind: string, data: string) => heard.get(id)!.push(`${kind} ${JSON.parse(data).node}`) };
      return new NodeEvents({ signals, store, hub, clock: { now: () => T }, logger: silentLogger(), claimTtlMs: 60_000 });
    });
    for (const n of nodes) await n.start();
    const scan = async (registry: NodeRecord[]) => {
      for (const n of nodes) await n.seen(registry);
    };
    // Listed at a node's first read: there before it, not news.
    await scan([record('n1', true, T)]);
    await scan([record('n1', true, T), record('n3', true, T)]);
    await scan([record('n3', true, T)]);
    await scan([record('n3', false, T)]);
    await scan([record('n3', false, T)]);
    // It heartbeats again (a stall), then dies for good: a second death, with its own last heartbeat.
    await scan([record('n3', true, T + 5_000)]);
    await scan([record('n3', false, T + 5_000)]);
    for (const [id, events] of heard) {
      assert.deepEqual(events, ['cluster.node.joined n3', 'cluster.node.dead n3', 'cluster.node.joined n3', 'cluster.node.dead n3'], `the admin streams of ${id}`);
    }
    for (const n of nodes) await n.stop();
  });
});
