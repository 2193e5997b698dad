import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock, type ChannelEvent, type EventLog, type LoggedEvent } from '@parley/core';
import { EventJournal } from '../src/events/event-journal.js';
import { silentLogger } from './support.js';

const event = (id: string): ChannelEvent => ({
  type: 'message.status', id, instance: 'ins_1', provider: 'whatsapp', receivedAt: 1, messageId: id, chatJid: 'c@s.whatsapp.net', recipientId: 'c',
  status: 'delivered', timestamp: 1,
}) as ChannelEvent;

describe('EventJournal', () => {
  it('appends a run of events in one call, in order; handing over does not wait for the write, written() does', async () => {
    const appends: LoggedEvent[][] = [];
    let release!: () => void;
    const stored = new Promise<void>((resolve) => (release = resolve));
    const log = { append: async (entries: LoggedEvent[]) => {
      appends.push(entries);
      await stored;
    } } as unknown as EventLog;
    const journal = new EventJournal(log, systemClock, 60_000, silentLogger());
    await journal.handleBatch([event('e1'), event('e2'), event('e3')]);
    let done = false;
    const written = journal.written().then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(appends.map((a) => a.map((e) => e.id)), [['e1', 'e2', 'e3']]);
    assert.equal(done, false, 'not written before the append is');
    release();
    await written;
    assert.equal(done, true);
  });

  it('retries a failed append (bounded), keeps later batches behind it, and gives up with a log line', async () => {
    const appends: string[][] = [];
    let failures = 2;
    const log = { append: async (entries: LoggedEvent[]) => {
      appends.push(entries.map((e) => e.id));
      if (entries[0]!.id === 'e1' && failures-- > 0) throw new Error('store unavailable');
      if (entries[0]!.id === 'bad') throw new Error('always');
    } } as unknown as EventLog;
    const logged: unknown[] = [];
    const logger = { ...silentLogger(), error: (obj: unknown) => void logged.push(obj) };
    const journal = new EventJournal(log, systemClock, 60_000, logger, [1, 1]);
    await journal.handle(event('e1'));
    await new Promise((r) => setImmediate(r));
    await journal.handle(event('e2'));
    await journal.written();
    assert.deepEqual(appends, [['e1'], ['e1'], ['e1'], ['e2']], 'e1 retried twice, e2 after it');
    await journal.handle(event('bad'));
    await journal.written();
    assert.deepEqual(appends.slice(4), [['bad'], ['bad'], ['bad']], 'two retries, then given up');
    assert.equal(logged.length, 1);
  });
});
