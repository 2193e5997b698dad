import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutcomeUnknownError, ServiceUnavailableError } from '@parley/core';
import { EventBus, type EventSubscriber } from '../src/events/event-bus.js';
import type { EventDropReason } from '../src/events/subscriber-retry.js';
import { captureLogger } from './support.js';
import { chatOf, presence, registry, TestClock } from './event-bus-support.js';

/**
 * A group-committing store in the manner of SQLite: the subscribers' writes succeed into the open
 * batch, and `flush` commits it — or, while the disk is `full`, rejects as SQLite's commit does and
 * rolls every write of the batch back. Rows are keyed (an upsert; a webhook keyed by the event's id).
 */
function groupCommitStore() {
  let batch = new Map<string, string>();
  const rows = new Map<string, string>();
  const committed: string[] = [];
  const calls = { store: 0, webhooks: 0 };
  let full = false;
  const write = (key: string, value: string) => void batch.set(key, value);
  const subscribers: EventSubscriber[] = [
    { name: 'store', handle: async (event) => { calls.store++; write(`message:${chatOf(event)}`, event.id); } },
    { name: 'webhooks', handle: async (event) => { calls.webhooks++; write(`webhook:${event.id}`, chatOf(event)); } },
  ];
  const flush = async () => {
    const writes = batch;
    batch = new Map();
    if (full) throw new ServiceUnavailableError('sqlite commit failed: SQLITE_FULL');
    for (const [key, value] of writes) {
      if (!rows.has(key)) committed.push(key);
      rows.set(key, value);
    }
  };
  return { subscribers, flush, rows, committed, calls, fill: () => (full = true), free: () => (full = false) };
}

/**
 * A store that commits as SQLite's group commit does: the writes of a turn go into one batch committed on
 * the next turn (`setImmediate`); `failCommits(n)` makes the next n commits fail, each rolling its whole
 * batch back and telling the `onDiscard` listeners before `flush` rejects. `ioAfterStore`: the store
 * subscriber awaits a turn after its write (I/O, as a media download), so a run's writes span two commits.
 */
function turnCommitStore(options: { ioAfterStore?: boolean } = {}) {
  const rows = new Map<string, string>();
  const committed: string[] = [];
  const calls = { store: 0, webhooks: 0 };
  const listeners: (() => void)[] = [];
  let failing = 0;
  let batch: { writes: Map<string, string>; done: Promise<void> } | null = null;
  let last: Promise<void> = Promise.resolve();
  const write = (key: string, value: string) => {
    if (!batch) {
      let settle!: (err?: Error) => void;
      const done = new Promise<void>((resolve, reject) => (settle = (err) => (err ? reject(err) : resolve())));
      done.catch(() => undefined);
      const open = (batch = { writes: new Map(), done });
      last = done;
      setImmediate(() => {
        batch = null;
        if (failing > 0) {
          failing--;
          for (const listener of listeners) listener();
          return settle(new ServiceUnavailableError('sqlite commit failed: SQLITE_FULL'));
        }
        for (const [k, v] of open.writes) {
          if (!rows.has(k)) committed.push(k);
          rows.set(k, v);
        }
        settle();
      });
    }
    batch.writes.set(key, value);
  };
  const subscribers: EventSubscriber[] = [
    {
      name: 'store', handle: async (event) => {
        calls.store++;
        write(`message:${chatOf(event)}`, event.id);
        if (options.ioAfterStore) await new Promise((resolve) => setImmediate(resolve));
      },
    },
    { name: 'webhooks', handle: async (event) => { calls.webhooks++; write(`webhook:${event.id}`, chatOf(event)); } },
  ];
  return {
    subscribers, rows, committed, calls, flush: () => batch?.done ?? last,
    onDiscard: (listener: () => void) => void listeners.push(listener), failCommits: (n: number) => (failing = n),
  };
}

function bus(subscribers: EventSubscriber[], durable: () => Promise<void>, clock = new TestClock(), onDiscard?: (listener: () => void) => void) {
  const { logger, lines } = captureLogger('info');
  const drops: [EventDropReason, number][] = [];
  const told: string[] = [];
  const events = new EventBus({
    registry: registry(), subscribers, filter: () => true, clock, logger, durable, ...(onDiscard ? { onDiscard } : {}),
    outage: { maxWaitMs: 60_000, maxDelayMs: 20 },
    observer: { eventsDropped: (reason, count) => drops.push([reason, count]) },
  });
  events.watch((event) => told.push(chatOf(event)));
  const logged = () => lines.map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string; step?: string; events?: string[] | number });
  return { events, drops, told, logged };
}

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), `timed out waiting for ${what}`);
};

describe('EventBus when the writes of handled events do not commit', () => {
  it('waits a failed group commit out like a failed write: the whole handling runs again once it commits, later events held in order, each written once', async () => {
    const s = groupCommitStore();
    const { events, drops, told, logged } = bus(s.subscribers, s.flush);
    s.fill();
    events.publish('a', 'whatsapp', presence(1));
    events.publish('a', 'whatsapp', presence(2));
    // Well past the 4 tries of the short retry.
    await until(() => s.calls.store >= 6, 'six tries of the first event');
    assert.deepEqual(s.committed, [], 'nothing committed while the disk is full');
    assert.equal(s.calls.store, s.calls.webhooks, 'every subscriber is run again, not only the last one');
    assert.deepEqual(told, [], 'not told to the watchers while its writes are not durable');
    s.free();
    await events.drain();
    assert.deepEqual(s.committed, ['message:1@s.whatsapp.net', `webhook:${s.rows.get('message:1@s.whatsapp.net')}`,
      'message:2@s.whatsapp.net', `webhook:${s.rows.get('message:2@s.whatsapp.net')}`], 'stored and queued once each, in order');
    assert.deepEqual(told, ['1@s.whatsapp.net', '2@s.whatsapp.net']);
    assert.deepEqual(drops, []);
    assert.deepEqual(logged().filter((l) => l.level >= 40), [], 'nothing given up, nothing said to be lost');
  });

  it('gives a run whose commit keeps failing up past the outage bound: logged with its ids and the commit as the step, counted once', async () => {
    const s = groupCommitStore();
    const clock = new TestClock();
    const { events, drops, told, logged } = bus(s.subscribers, s.flush, clock);
    s.fill();
    events.publish('a', 'whatsapp', presence(1));
    await until(() => s.calls.store >= 3, 'three tries');
    clock.advance(60_000);
    await events.drain();
    assert.deepEqual(drops, [['outage', 1]]);
    const given = logged().filter((l) => l.level >= 50);
    assert.equal(given.length, 1);
    assert.equal(given[0]!.msg, 'event handling given up: storage stayed unavailable');
    assert.equal(given[0]!.step, 'commit');
    assert.equal((given[0]!.events as string[]).length, 1);
    assert.deepEqual(told, ['1@s.whatsapp.net'], 'a run given up still reaches the watchers (the live streams)');
    assert.deepEqual(s.committed, []);
  });

  it('keeps writes whose flush answers not_replicated (on the Redis master, no replica confirmed) as written: handled once, not dropped, one warning', async () => {
    const s = groupCommitStore();
    const durable = async () => {
      await s.flush();
      throw new OutcomeUnknownError('the request\'s writes reached the redis master but were not confirmed by its replicas in time', 'not_replicated');
    };
    const { events, drops, told, logged } = bus(s.subscribers, durable);
    events.publish('a', 'whatsapp', presence(1));
    events.publish('a', 'whatsapp', presence(2));
    await events.drain();
    assert.deepEqual(s.calls, { store: 2, webhooks: 2 }, 'each event handled once: running it again would not make a replica confirm it');
    assert.deepEqual(told, ['1@s.whatsapp.net', '2@s.whatsapp.net']);
    assert.deepEqual(drops, [], 'not counted as dropped: the writes are on the master');
    const lines = logged().filter((l) => l.level >= 40);
    assert.deepEqual(lines.map((l) => [l.level, l.msg]), [[40, 'the writes of handled events were not confirmed by a replica; kept as written on the master']],
      'one warning for the minute, not one per event');
  });

  it('handles an instance\'s next runs before the previous run\'s commit, and ends each run only once its writes are durable', async () => {
    const s = groupCommitStore();
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    const { events, told } = bus(s.subscribers, async () => {
      await committed;
      await s.flush();
    });
    let processed = false;
    for (let n = 1; n <= 3; n++) events.publish('a', 'whatsapp', presence(n));
    void events.processed('a').then(() => (processed = true));
    await until(() => s.calls.webhooks === 3, 'all three runs handled');
    assert.deepEqual(s.committed, [], 'handled before any commit: their writes share it');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(told, [], 'no run over before its writes are durable');
    assert.equal(processed, false, 'processed() waits for durability');
    commit();
    await events.drain();
    assert.equal(processed, true);
    assert.deepEqual(told, ['1@s.whatsapp.net', '2@s.whatsapp.net', '3@s.whatsapp.net']);
    assert.deepEqual(s.calls, { store: 3, webhooks: 3 }, 'each handled once');
  });

  it('handles again, in order, every run of an instance whose writes a discarded group commit held: each written once, none lost', async () => {
    const s = turnCommitStore();
    const { events, drops, told } = bus(s.subscribers, s.flush, new TestClock(), s.onDiscard);
    s.failCommits(1);
    for (let n = 1; n <= 3; n++) events.publish('a', 'whatsapp', presence(n));
    await events.drain();
    assert.deepEqual(s.calls, { store: 6, webhooks: 6 }, 'the three runs, handled into one commit, each handled again');
    const ids = [1, 2, 3].map((n) => s.rows.get(`message:${n}@s.whatsapp.net`));
    assert.deepEqual(s.committed, ids.flatMap((id, n) => [`message:${n + 1}@s.whatsapp.net`, `webhook:${id}`]), 'committed once each, in order');
    assert.deepEqual(told, ['1@s.whatsapp.net', '2@s.whatsapp.net', '3@s.whatsapp.net']);
    assert.deepEqual(drops, []);
  });

  it('handles a run again when a commit holding its first writes was discarded while it went on (its last commit succeeding)', async () => {
    const s = turnCommitStore({ ioAfterStore: true });
    const { events, told } = bus(s.subscribers, s.flush, new TestClock(), s.onDiscard);
    s.failCommits(1);
    events.publish('a', 'whatsapp', presence(1));
    await events.drain();
    const id = s.rows.get('message:1@s.whatsapp.net');
    assert.deepEqual(s.committed, ['message:1@s.whatsapp.net', `webhook:${id}`], 'the stored message is not lost with the discarded commit');
    assert.equal(s.calls.webhooks, 1, 'no subscriber goes on from writes that were discarded');
    assert.deepEqual(told, ['1@s.whatsapp.net']);
  });
});
