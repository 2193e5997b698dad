import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock, type ChannelEvent, type ChannelEventPayload, type MessageRecord } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { EventBus, type EventSubscriber } from '../src/events/event-bus.js';
import { StoreProjector } from '../src/events/store-projector.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import { silentLogger } from './support.js';

const PEER = '5511970000002@s.whatsapp.net';

function sentRecord(id: string): MessageRecord {
  return { key: { remoteJid: PEER, fromMe: true, id }, message: { conversation: 'hello' }, messageTimestamp: '1700000000', status: 'PENDING' };
}

/** The channel's own copy of a send as the sandbox emits it: a record equal to the one `send` answers, another object. */
function ownCopy(id: string): ChannelEventPayload {
  return {
    type: 'message',
    message: {
      id, chatJid: PEER, from: '5511970000001', fromMe: true, timestamp: 1700000000, chatType: 'individual', content: { type: 'text', body: 'hello' },
      record: sentRecord(id),
    },
  };
}

const status = (messageId: string, value: 'sent' | 'delivered' = 'delivered'): ChannelEventPayload =>
  ({ type: 'message.status', messageId, chatJid: PEER, recipientId: '5511970000002', status: value, timestamp: 1 });

/**
 * A real bus with the real store projector on memory storage for one instance, behind a subscriber
 * that holds the instance's first event until `release` (so later events queue up) and before one that
 * records the runs it is handed; the message reads and writes of the storage are counted by id, and
 * the bus's taps and watchers record what they are told.
 */
async function harness() {
  const storage = new MemoryStorage();
  await storage.init();
  const reads: string[] = [];
  const writes: string[] = [];
  const get = storage.messages.get.bind(storage.messages);
  const upsert = storage.messages.upsert.bind(storage.messages);
  storage.messages.get = async (instance, id) => (reads.push(id), get(instance, id));
  storage.messages.upsert = async (instance, record) => (writes.push(record.key.id), upsert(instance, record));
  const runtime = { id: 'ins_1', record: { id: 'ins_1', flags: { saveMedia: false, markMessages: false } }, main: { channel: 'sandbox' } };
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
  const told: string[] = [];
  bus.tap((event) => told.push(`tap ${event.type}`));
  bus.watch((event) => told.push(`watch ${event.type}`));
  return { storage, bus, runs, told, reads, writes, release };
}

describe('EventBus.publishSent and StoreProjector.handleSent: the store writes sent records', () => {
  it('stores a send whose own copy the channel reported once, matched by instance and message id, and shows it to the store alone', async () => {
    const { storage, bus, runs, told, reads, writes, release } = await harness();
    bus.publish('ins_1', 'sandbox', ownCopy('M1'));
    bus.publish('ins_1', 'sandbox', status('X1'));
    const stored = bus.publishSent('ins_1', 'sandbox', { record: { ...sentRecord('M1'), provider: 'sandbox' } });
    bus.publish('ins_1', 'sandbox', status('X2'));
    release();
    await stored;
    assert.equal((await storage.messages.get('ins_1', 'M1'))?.provider, 'sandbox', 'durable when publishSent resolves');
    assert.equal((await storage.chats.get('ins_1', PEER))?.timestamp, 1700000000, 'with its chat');
    await bus.drain();
    assert.deepEqual(writes, ['M1'], 'written once, by the own copy');
    assert.deepEqual(reads.filter((id) => id === 'M1').length, 2, 'read by the own copy\'s projection and the check above, not by the record\'s');
    // The other subscribers, the taps and the watchers never see the record's event, and it cuts no run.
    assert.deepEqual(runs, ['message,X1,X2']);
    assert.deepEqual(told, ['tap message', 'tap message.status', 'tap message.status', 'watch message', 'watch message.status', 'watch message.status']);
    await storage.close();
  });

  it('stores a send the channel reported no copy of, with its chat, after the statuses it emitted before', async () => {
    const { storage, bus, runs, writes, release } = await harness();
    // A channel whose server acknowledged the send before `send` returned.
    bus.publish('ins_1', 'sandbox', status('M2', 'sent'));
    const first = bus.publishSent('ins_1', 'sandbox', { record: { ...sentRecord('M2'), provider: 'sandbox' } });
    const second = bus.publishSent('ins_1', 'sandbox', { record: { ...sentRecord('M3'), provider: 'sandbox', messageTimestamp: '1700000005' } });
    // Handled in the same run as the records, before them: it waits for its record as an early status.
    bus.publish('ins_1', 'sandbox', status('M3'));
    release();
    await Promise.all([first, second]);
    assert.equal((await storage.messages.get('ins_1', 'M2'))?.status, 'SERVER_ACK', 'the status that came first applies');
    assert.equal((await storage.messages.get('ins_1', 'M3'))?.status, 'DELIVERY_ACK', 'and the one that came after');
    assert.equal((await storage.chats.get('ins_1', PEER))?.timestamp, 1700000005, 'one chat write for the run, at its latest message');
    await bus.drain();
    assert.deepEqual(writes.sort(), ['M2', 'M3']);
    assert.deepEqual(runs, ['M2,M3'], 'the records cut no run');
    await storage.close();
  });

  it('keeps a media send\'s copy for GET media, also when the channel reported the message', async () => {
    const { storage, bus, release } = await harness();
    bus.publish('ins_1', 'sandbox', ownCopy('M4'));
    const data = Buffer.from('image bytes');
    const stored = bus.publishSent('ins_1', 'sandbox', { record: { ...sentRecord('M4'), provider: 'sandbox' }, media: { data, mimetype: 'image/png', fileName: 'a.png' } });
    release();
    await stored;
    const media = await storage.media.get('ins_1', 'M4');
    assert.deepEqual(media && { data: media.data.toString(), mimetype: media.mimetype, fileName: media.fileName }, { data: 'image bytes', mimetype: 'image/png', fileName: 'a.png' });
    await bus.drain();
    await storage.close();
  });
});
