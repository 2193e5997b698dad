import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock, type ChannelEvent, type ChannelEventPayload } from '@parley/core';
import { EventBus, type EventSubscriber } from '../src/events/event-bus.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import { silentLogger } from './support.js';

const status = (messageId: string): ChannelEventPayload => ({ type: 'message.status', messageId, chatJid: 'c@s.whatsapp.net', recipientId: 'c', status: 'delivered', timestamp: 1 });
const message = (id: string): ChannelEventPayload => ({
  type: 'message',
  message: { id, chatJid: 'c@s.whatsapp.net', from: 'c', fromMe: true, timestamp: 1, chatType: 'individual', content: { type: 'text', body: id },
    record: { key: { remoteJid: 'c@s.whatsapp.net', fromMe: true, id }, message: { conversation: id }, messageTimestamp: '1', status: 'SERVER_ACK' } },
});
const presence = (): ChannelEventPayload => ({ type: 'presence', jid: 'c@s.whatsapp.net', status: 'available' });

/** A bus over one fake instance, with a subscriber that batches (its first call held until `release`) and one that does not. */
function harness() {
  const runtime = { id: 'ins_1', record: { id: 'ins_1' } };
  const registry = { publishTo: () => undefined, byIdOrThrow: async () => runtime } as unknown as InstanceRegistry;
  const calls: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const describe = (e: ChannelEvent) => (e.type === 'message.status' ? e.messageId! : e.type === 'message' ? `msg ${e.message.id}` : e.type);
  const batching: EventSubscriber = {
    name: 'batching',
    handle: async (event) => {
      calls.push(`one ${describe(event)}`);
      if (first) {
        first = false;
        await gate;
      }
    },
    handleBatch: async (events) => {
      calls.push(`batch ${events.map(describe).join(',')}`);
    },
  };
  const plain: EventSubscriber = { name: 'plain', handle: async (event) => void calls.push(`plain ${describe(event)}`) };
  const bus = new EventBus({ registry, subscribers: [batching, plain], filter: () => true, clock: systemClock, logger: silentLogger() });
  const tapped: string[] = [];
  bus.tap((e) => tapped.push(describe(e)));
  return { bus, calls, release, tapped };
}

describe('EventBus: runs of events that queued up', () => {
  it('hands consecutive events of a batched type to handleBatch in order, stops at another type and at a run() task, and calls handle for subscribers without it', async () => {
    const { bus, calls, release, tapped } = harness();
    bus.publish('ins_1', 'whatsapp', presence());
    // Queued behind the held first event:
    for (const id of ['m1', 'm2', 'm3']) bus.publish('ins_1', 'whatsapp', status(id));
    const ran = bus.run('ins_1', async () => {
      calls.push('task');
      return 7;
    });
    for (const id of ['m4', 'm5']) bus.publish('ins_1', 'whatsapp', status(id));
    bus.publish('ins_1', 'whatsapp', presence());
    bus.publish('ins_1', 'whatsapp', status('m6'));
    release();
    assert.equal(await ran, 7);
    await bus.drain();
    assert.deepEqual(calls, [
      'one presence', 'plain presence',
      'batch m1,m2,m3', 'plain m1', 'plain m2', 'plain m3',
      'task',
      'batch m4,m5', 'plain m4', 'plain m5',
      'one presence', 'plain presence',
      // A run of one goes to handle.
      'one m6', 'plain m6',
    ]);
    assert.deepEqual(tapped, ['presence', 'm1', 'm2', 'm3', 'm4', 'm5', 'presence', 'm6'], 'every event is tapped once, in order');
  });

  it('processed() resolves once the events published before it are handled, without cutting the run of events published after it', async () => {
    const { bus, calls, release } = harness();
    bus.publish('ins_1', 'whatsapp', presence());
    bus.publish('ins_1', 'whatsapp', status('m1'));
    let caughtUp: string[] | undefined;
    const waited = bus.processed('ins_1').then(() => (caughtUp = [...calls]));
    bus.publish('ins_1', 'whatsapp', status('m2'));
    release();
    await waited;
    await bus.drain();
    // m1 and m2 form one run: processed() queued no task between them.
    assert.deepEqual(calls, ['one presence', 'plain presence', 'batch m1,m2', 'plain m1', 'plain m2']);
    assert.ok(caughtUp!.includes('plain m1'), 'processed() resolved after the events published before it');
  });

  it('takes messages and statuses queued together into one run, in publish order, up to another type', async () => {
    const { bus, calls, release, tapped } = harness();
    bus.publish('ins_1', 'whatsapp', presence());
    // A send's message and its receipts, interleaved with the next send's, as they queue up under load:
    bus.publish('ins_1', 'whatsapp', message('m1'));
    bus.publish('ins_1', 'whatsapp', status('m1'));
    bus.publish('ins_1', 'whatsapp', message('m2'));
    bus.publish('ins_1', 'whatsapp', status('m2'));
    bus.publish('ins_1', 'whatsapp', status('m1'));
    bus.publish('ins_1', 'whatsapp', presence());
    bus.publish('ins_1', 'whatsapp', message('m3'));
    release();
    await bus.drain();
    assert.deepEqual(calls, [
      'one presence', 'plain presence',
      'batch msg m1,m1,msg m2,m2,m1', 'plain msg m1', 'plain m1', 'plain msg m2', 'plain m2', 'plain m1',
      'one presence', 'plain presence',
      'one msg m3', 'plain msg m3',
    ]);
    assert.deepEqual(tapped, ['presence', 'msg m1', 'm1', 'msg m2', 'm2', 'm1', 'presence', 'msg m3']);
  });
});
