import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock, type ChannelAdapter, type ChannelEvent, type ChannelEventPayload, type MessageRecord } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { EventBus, type EventSubscriber } from '../src/events/event-bus.js';
import { StoreProjector } from '../src/events/store-projector.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import { SendProjection } from '../src/send/send-projection.js';
import { silentLogger } from './support.js';

const PEER = '5511970000002@s.whatsapp.net';
const adapter = { channel: 'sandbox' } as unknown as ChannelAdapter;
const content = { type: 'text', text: 'hello' } as const;

function sentRecord(id: string): MessageRecord {
  return { key: { remoteJid: PEER, fromMe: true, id }, message: { conversation: 'hello' }, messageTimestamp: '1700000000', status: 'PENDING' };
}

/** The channel's own copy of a send, carrying the very record `send` answers (as the sandbox emits it). */
function echo(record: MessageRecord): ChannelEventPayload {
  return {
    type: 'message',
    message: { id: record.key.id, chatJid: PEER, from: '5511970000001', fromMe: true, timestamp: 1700000000, chatType: 'individual', content: { type: 'text', body: 'hello' }, record },
  };
}

const status = (messageId: string): ChannelEventPayload =>
  ({ type: 'message.status', messageId, chatJid: PEER, recipientId: '5511970000002', status: 'delivered', timestamp: 1 });

/**
 * A real bus with the real store projector on memory storage for one instance, behind a subscriber
 * that holds the instance's first event until `release` (so later events queue up) and after one that
 * records the runs of status events it is handed.
 */
async function harness() {
  const storage = new MemoryStorage();
  await storage.init();
  const runtime = { id: 'ins_1', record: { id: 'ins_1', flags: { saveMedia: false, markMessages: false } }, main: adapter };
  const registry = { publishTo: () => undefined, byIdOrThrow: async () => runtime, update: async () => runtime.record } as unknown as InstanceRegistry;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const hold: EventSubscriber = { name: 'hold', handle: () => gate, handleBatch: () => gate };
  const runs: string[] = [];
  const describeRun = (events: readonly ChannelEvent[]) => events.map((e) => (e.type === 'message.status' ? e.messageId : e.type)).join(',');
  const recorder: EventSubscriber = {
    name: 'recorder',
    handle: async (event) => void runs.push(describeRun([event])),
    handleBatch: async (events) => void runs.push(describeRun(events)),
  };
  const projector = new StoreProjector(storage, registry, systemClock, silentLogger());
  const bus = new EventBus({ registry, subscribers: [hold, projector, recorder], filter: () => true, clock: systemClock, logger: silentLogger() });
  return { storage, bus, projection: new SendProjection(storage, bus, projector, silentLogger()), runs, release };
}

describe('SendProjection', () => {
  it('waits for the channel\'s echo of the send without cutting the runs of the events around it', async () => {
    const { storage, bus, projection, runs, release } = await harness();
    const record = sentRecord('M1');
    bus.publish('ins_1', 'sandbox', echo(record));
    bus.publish('ins_1', 'sandbox', status('X1'));
    const projected = projection.project('ins_1', adapter, content, record);
    bus.publish('ins_1', 'sandbox', status('X2'));
    release();
    const stored = await projected;
    assert.equal(stored.key.id, 'M1');
    assert.equal(stored.provider, 'sandbox');
    assert.equal((await storage.messages.get('ins_1', 'M1'))?.key.id, 'M1', 'the echo stored the record before the send path answered');
    assert.equal((await storage.chats.get('ins_1', PEER))?.timestamp, 1700000000, 'with its chat');
    await bus.drain();
    // No task was queued between X1 and X2: they reach the subscribers as one run.
    assert.deepEqual(runs, ['message', 'X1,X2']);
    await storage.close();
  });

  it('stores the record and its chat itself, in the instance\'s event order, when the channel emitted no echo', async () => {
    const { storage, bus, projection, runs, release } = await harness();
    bus.publish('ins_1', 'sandbox', status('X1'));
    const projected = projection.project('ins_1', adapter, content, sentRecord('M2'));
    bus.publish('ins_1', 'sandbox', status('X2'));
    release();
    const stored = await projected;
    assert.equal(stored.key.id, 'M2');
    assert.equal(stored.status, 'PENDING');
    assert.equal((await storage.messages.get('ins_1', 'M2'))?.status, 'PENDING');
    assert.equal((await storage.chats.get('ins_1', PEER))?.timestamp, 1700000000);
    await bus.drain();
    // The record was stored as a task between the two runs.
    assert.deepEqual(runs, ['X1', 'X2']);
    await storage.close();
  });
});
