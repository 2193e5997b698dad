import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock, type ChannelEvent, type EventLog, type LoggedEvent } from '@parley/core';
import { EventJournal } from '../src/events/event-journal.js';
import { silentLogger } from './support.js';

const event = (id: string): ChannelEvent => ({
  type: 'message.status', id, instance: 'ins_1', provider: 'whatsapp', receivedAt: 1, messageId: id, chatJid: 'c@s.whatsapp.net', recipientId: 'c',
  status: 'delivered', timestamp: 1,
}) as ChannelEvent;

describe('EventJournal.handleBatch', () => {
  it('appends a run of events in one call, in order, and resolves once it is written', async () => {
    const appends: LoggedEvent[][] = [];
    let release!: () => void;
    const written = new Promise<void>((resolve) => (release = resolve));
    const log = { append: async (entries: LoggedEvent[]) => {
      appends.push(entries);
      await written;
    } } as unknown as EventLog;
    const journal = new EventJournal(log, systemClock, 60_000, silentLogger());
    let done = false;
    const handled = journal.handleBatch([event('e1'), event('e2'), event('e3')]).then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(appends.map((a) => a.map((e) => e.id)), [['e1', 'e2', 'e3']]);
    assert.equal(done, false, 'not before the append is written');
    release();
    await handled;
    assert.equal(done, true);
  });
});
