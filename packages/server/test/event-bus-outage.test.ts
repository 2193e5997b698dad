import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FencedOffError, ServiceUnavailableError } from '@parley/core';
import { EventBus, type EventSubscriber } from '../src/events/event-bus.js';
import type { EventDropReason } from '../src/events/subscriber-retry.js';
import { captureLogger } from './support.js';
import { chatOf, presence, registry, TestClock } from './event-bus-support.js';

/**
 * A store that is "down" (every handle of instance `a` fails with `failure`) until `up()`; handled
 * events are recorded by instance, in order.
 */
function store(failure: () => Error = () => new ServiceUnavailableError('redis at 127.0.0.1:1 is unreachable; reconnecting')) {
  let down = true;
  let attempts = 0;
  const handled: string[] = [];
  const subscriber: EventSubscriber = {
    name: 'store',
    handle: async (event) => {
      if (event.instance === 'a') {
        attempts++;
        if (down) throw failure();
      }
      handled.push(`${event.instance}:${chatOf(event)}`);
    },
  };
  return { subscriber, handled, up: () => (down = false), attempts: () => attempts };
}

function bus(subscriber: EventSubscriber, options: { clock?: TestClock; maxWaitMs?: number; maxEvents?: number } = {}) {
  const { logger, lines } = captureLogger('info');
  const drops: [EventDropReason, number][] = [];
  const clock = options.clock ?? new TestClock();
  const events = new EventBus({
    registry: registry(), subscribers: [subscriber], filter: () => true, clock, logger,
    outage: { maxWaitMs: options.maxWaitMs ?? 60_000, maxDelayMs: 20 },
    backlog: { maxEvents: options.maxEvents ?? 10_000 },
    observer: { eventsDropped: (reason, count) => drops.push([reason, count]) },
  });
  const errors = () => lines.map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string; events?: string[]; event?: string }).filter((l) => l.level >= 50);
  return { events, drops, errors, clock };
}

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), `timed out waiting for ${what}`);
};

describe('EventBus through a storage outage', () => {
  it('waits out "storage unavailable" past the short retries, holding the instance in order while others proceed', async () => {
    const s = store();
    const { events, drops, errors } = bus(s.subscriber);
    events.publish('a', 'whatsapp', presence(1));
    events.publish('a', 'whatsapp', presence(2));
    events.publish('b', 'whatsapp', presence(3));
    // Well past the 4 tries the short retry makes (it gave up after 100 + 500 + 2000 ms).
    await until(() => s.attempts() >= 8, 'eight failed tries');
    assert.deepEqual(s.handled, ['b:3@s.whatsapp.net'], 'b is not held by a\'s outage; a\'s events wait');
    s.up();
    await events.drain();
    assert.deepEqual(s.handled, ['b:3@s.whatsapp.net', 'a:1@s.whatsapp.net', 'a:2@s.whatsapp.net'], 'each of a\'s events handled once, in order');
    assert.deepEqual(drops, []);
    assert.deepEqual(errors(), []);
  });

  it('gives a run up once the outage outlasts maxWaitMs on the clock: logged at error with its event ids and counted; the next is tried once', async () => {
    const s = store();
    const clock = new TestClock();
    const { events, drops, errors } = bus(s.subscriber, { clock, maxWaitMs: 60_000 });
    events.publish('a', 'whatsapp', presence(1));
    await until(() => s.attempts() >= 3, 'three failed tries');
    assert.deepEqual(drops, [], 'not given up while the clock stays within the bound');
    clock.advance(60_000);
    await events.drain();
    assert.deepEqual(drops, [['outage', 1]]);
    const [line] = errors();
    assert.equal(line?.msg, 'event handling given up: storage stayed unavailable');
    assert.equal(line?.reason, 'outage');
    assert.equal(line?.events?.length, 1);
    // Still down: the instance's next event is tried once, not waited for again.
    const before = s.attempts();
    events.publish('a', 'whatsapp', presence(2));
    await events.drain();
    assert.equal(s.attempts(), before + 1);
    assert.deepEqual(drops, [['outage', 1], ['outage', 1]]);
    // Back: handled, and a later outage gets its full wait again.
    s.up();
    events.publish('a', 'whatsapp', presence(3));
    await events.drain();
    assert.deepEqual(s.handled, ['a:3@s.whatsapp.net']);
  });

  it('keeps the short bounded retry for other failures (a subscriber bug, a lost lease)', async () => {
    for (const failure of [() => new TypeError('bug'), () => new FencedOffError('a')]) {
      const s = store(failure);
      const { events, drops, errors } = bus(s.subscriber);
      events.publish('a', 'whatsapp', presence(1));
      await events.drain();
      assert.equal(s.attempts(), 4, 'the first try and 3 retries');
      assert.deepEqual(drops, [['failed', 1]]);
      assert.equal(errors()[0]?.msg, 'event handling failed after retries');
    }
  });

  it('bounds what a blocked instance holds: an event past maxBacklog is dropped at once, logged and counted', async () => {
    const s = store();
    const { events, drops, errors } = bus(s.subscriber, { maxEvents: 3 });
    events.publish('a', 'whatsapp', presence(1));
    await until(() => s.attempts() >= 2, 'the outage to be seen');
    for (let i = 2; i <= 5; i++) events.publish('a', 'whatsapp', presence(i));
    assert.deepEqual(drops, [['backlog', 1]], 'three wait behind the held one; the fourth is refused');
    assert.match(errors()[0]!.msg, /too many events/);
    s.up();
    await events.drain();
    assert.deepEqual(s.handled, [1, 2, 3, 4].map((n) => `a:${n}@s.whatsapp.net`));
  });

  it('stopWaiting: drain ends after the grace, the held events given up as `shutdown`', async () => {
    const s = store();
    const { events, drops } = bus(s.subscriber);
    events.publish('a', 'whatsapp', presence(1));
    events.publish('a', 'whatsapp', presence(2));
    await until(() => s.attempts() >= 2, 'the outage to be seen');
    const started = performance.now();
    events.stopWaiting(200);
    await events.drain();
    const took = performance.now() - started;
    assert.ok(took >= 150 && took < 5_000, `drain ended after the grace (${Math.round(took)} ms)`);
    assert.deepEqual(drops, [['shutdown', 1], ['shutdown', 1]]);
    assert.deepEqual(s.handled, []);
  });

  it('stopWaiting: a try in flight at the grace\'s end (a silent store, hanging until its command time-out) is not waited for', async () => {
    let attempts = 0;
    const silent: EventSubscriber = {
      name: 'store',
      // The first try fails (the outage begins); the next ones hang, as on a store whose link drops every packet.
      handle: () => (attempts++ === 0 ? Promise.reject(new ServiceUnavailableError('postgres did not answer within 2000 ms')) : new Promise(() => undefined)),
    };
    const { events, drops } = bus(silent);
    // A server's sockets keep its event loop alive; here nothing would while the try hangs (the grace timer
    // is unref'd), and Node 22's test runner fails a test whose event loop empties with a promise pending.
    const alive = setInterval(() => undefined, 1_000);
    try {
      events.publish('a', 'whatsapp', presence(1));
      await until(() => attempts >= 2, 'a try to hang');
      const started = performance.now();
      events.stopWaiting(200);
      await events.drain();
      const took = performance.now() - started;
      assert.ok(took >= 150 && took < 5_000, `drain ended after the grace (${Math.round(took)} ms)`);
      assert.deepEqual(drops, [['shutdown', 1]]);
    } finally {
      clearInterval(alive);
    }
  });

  it('unlessBlocked: a wait on the instance\'s chain ends with 503 once its events fail for storage; the task still runs after', async () => {
    const s = store();
    const { events } = bus(s.subscriber);
    assert.equal(await events.unlessBlocked('a', events.run('a', async () => 'ran')), 'ran', 'nothing blocked: the task\'s answer');
    let ran = false;
    events.publish('a', 'whatsapp', presence(1));
    const waited = events.unlessBlocked('a', events.run('a', async () => void (ran = true)));
    await assert.rejects(waited, (err: Error & { status?: number; code?: string }) => err.status === 503 && err.code === 'service_unavailable');
    assert.equal(ran, false);
    await assert.rejects(events.unlessBlocked('a', events.processed('a')), /unavailable/, 'blocked already: at once');
    s.up();
    await events.drain();
    assert.equal(ran, true, 'the task ran once storage was back, after the held event');
    assert.deepEqual(s.handled, ['a:1@s.whatsapp.net']);
  });
});
