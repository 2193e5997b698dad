import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { systemClock, type ChannelEvent, type InstanceRecord } from '@parley/core';
import { EventBus } from '../src/events/event-bus.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import { instanceNotFound, type InstanceRuntime } from '../src/instances/instance-runtime.js';
import { silentLogger } from './support.js';

/** A registry of two loaded instances, `a` and `b`; any other id is unknown. */
function registry(): InstanceRegistry {
  const runtimes = new Map(['a', 'b'].map((id) => [id, { id, record: { id, name: id } as unknown as InstanceRecord } as unknown as InstanceRuntime]));
  return {
    publishTo: () => undefined,
    byIdOrThrow: async (id: string) => {
      const runtime = runtimes.get(id);
      if (!runtime) throw instanceNotFound();
      return runtime;
    },
  } as unknown as InstanceRegistry;
}

/** Publishes a history event of 500 messages for `a`; answers a weak reference to its messages. */
function publishHistory(bus: EventBus, i: number): WeakRef<object> {
  const messages = Array.from({ length: 500 }, (_, m) => ({ key: { id: `3EB0${i}${m}` } }));
  bus.publish('a', 'whatsapp', { type: 'history', messages, chats: [], contacts: [], isLatest: i === 2 } as never);
  return new WeakRef(messages);
}

const presence = { type: 'presence', chatJid: 'x@s.whatsapp.net', presence: 'available' } as never;

describe('EventBus.watch and horizon', () => {
  it('tells watchers in publish order, after every earlier event is handled, skipping dropped ones; horizon bounds what is handled', async () => {
    let releaseA!: () => void;
    const aBlocked = new Promise<void>((resolve) => (releaseA = resolve));
    const handled: string[] = [];
    const bus = new EventBus({
      registry: registry(), filter: () => true, clock: systemClock, logger: silentLogger(),
      subscribers: [{
        name: 'slow-a',
        handle: async (event: ChannelEvent) => {
          if (event.instance === 'a' && handled.length === 0) await aBlocked;
          handled.push(event.id);
        },
      }],
    });
    const seen: [string, string][] = [];
    bus.watch((event, record) => seen.push([event.instance, record.id]));
    assert.equal(bus.horizon(), '\uffff', 'nothing in flight: every id is below it');
    bus.publish('a', 'whatsapp', presence);
    bus.publish('b', 'whatsapp', presence);
    bus.publish('ghost', 'whatsapp', presence);
    bus.publish('b', 'whatsapp', presence);
    await new Promise((r) => setTimeout(r, 20));
    // b's events are handled, but a's first one is not: nobody is told yet, and the horizon is a's id.
    assert.equal(handled.length, 2);
    assert.deepEqual(seen, []);
    const ids = (bus as unknown as { inFlight: { event: ChannelEvent }[] }).inFlight.map((s) => s.event.id);
    const [firstA] = ids;
    assert.equal(bus.horizon(), firstA);
    // Every event not yet told is being handled (b's too, though done); ids it never published are not.
    for (const id of ids) assert.equal(bus.handling(id), true, id);
    assert.equal(bus.handling(`${firstA!.slice(0, -1)}!`), false, 'an id between published ones (another node\'s)');
    assert.equal(bus.handling('00000000000000000000000000'), false);
    assert.equal(bus.handling('ZZZZZZZZZZZZZZZZZZZZZZZZZZ'), false);
    releaseA();
    await bus.drain();
    for (const id of ids) assert.equal(bus.handling(id), false, `${id} was told`);
    assert.deepEqual(seen, [['a', 'a'], ['b', 'b'], ['b', 'b']]);
    assert.equal(bus.horizon(), '\uffff');
  });

  it('keeps no told event alive: a history batch is collectable once every subscriber and watcher had it', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const bus = new EventBus({ registry: registry(), filter: () => true, clock: systemClock, logger: silentLogger(), subscribers: [{ name: 'store', handle: async () => undefined }] });
    bus.watch(() => undefined);
    // Fewer events than the compaction threshold (1024): before the fix they stayed in the in-flight list.
    const batches = [0, 1, 2].map((i) => publishHistory(bus, i));
    await bus.drain();
    await new Promise((r) => setImmediate(r));
    gc();
    assert.deepEqual(batches.map((ref) => ref.deref() === undefined), [true, true, true]);
  });
});
