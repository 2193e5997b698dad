import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { loggedEventOf, newUlid, systemClock, type ChannelEvent, type InstanceRecord, type PluginEventSubscriber } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import type { EventWatcher } from '../src/events/event-bus.js';
import { SUBSCRIBER_CURSORS, SubscriberFeed } from '../src/events/subscriber-feed.js';
import { captureLogger, silentLogger } from './support.js';

/** The bus as a feed sees it: watchers told of handled events in id order, and the horizon of the events in flight. */
class BusStandIn {
  private readonly watchers = new Set<EventWatcher>();
  inFlight?: string;

  watch(watcher: EventWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  horizon(): string {
    return this.inFlight ?? '\uffff';
  }

  tell(event: ChannelEvent): void {
    for (const watcher of this.watchers) watcher(event, {} as InstanceRecord);
  }
}

/** A subscriber recording what it was handed; `gate` holds its `handle` until opened. */
function recorder(): PluginEventSubscriber & { ids: string[]; gate?: Promise<void> } {
  const subscriber = {
    name: 'recorder',
    ids: [] as string[],
    gate: undefined as Promise<void> | undefined,
    async handle(event: ChannelEvent) {
      await subscriber.gate;
      subscriber.ids.push(event.id);
    },
  };
  return subscriber;
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('subscriber feed: every handled event to an in-process subscriber, at least once, in order, off the bus', () => {
  let storage: MemoryStorage;
  let bus: BusStandIn;
  let feeds: SubscriberFeed[];

  beforeEach(async () => {
    storage = new MemoryStorage();
    await storage.init();
    bus = new BusStandIn();
    feeds = [];
  });
  afterEach(async () => {
    for (const feed of feeds) await feed.stop();
    await storage.close();
  });

  const feed = (subscriber: PluginEventSubscriber, more: Partial<ConstructorParameters<typeof SubscriberFeed>[0]> = {}) => {
    const made = new SubscriberFeed({ subscriber, log: storage.events, state: storage.state, bus, clock: systemClock, logger: silentLogger(), ...more });
    feeds.push(made);
    return made;
  };

  /** An event handled by the bus: logged (the webhook engine's write), then told to the watchers. */
  const handled = async (n: number, instance = 'ins_a', tell = true): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const event = { type: 'qrcode', qr: `q${i}`, image: '', id: newUlid(Date.now()), instance, provider: 'whatsapp', receivedAt: Date.now() } as ChannelEvent;
      await storage.events.append([loggedEventOf(event)]);
      if (tell) bus.tell(event);
      ids.push(event.id);
    }
    return ids;
  };

  it('hands over every event once, in id order; a subscriber seen for the first time starts at the present', async () => {
    await handled(3);
    const subscriber = recorder();
    await feed(subscriber).start();
    const ids = [...await handled(4, 'ins_a'), ...await handled(4, 'ins_b')];
    await until(() => subscriber.ids.length >= ids.length, 'the events handed over');
    assert.deepEqual(subscriber.ids, ids);
  });

  it('a subscriber that does not return holds up nothing; past its bound the feed reads the log again: nothing lost, nothing twice', async () => {
    const subscriber = recorder();
    let open!: () => void;
    subscriber.gate = new Promise((resolve) => { open = resolve; });
    await feed(subscriber, { maxQueued: 10 }).start();
    // Every event is logged and told while the subscriber is stuck on the first: telling never waits for it.
    const ids = await handled(60);
    assert.equal(subscriber.ids.length, 0);
    open();
    await until(() => subscriber.ids.length >= ids.length, 'the backlog read from the log');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(subscriber.ids, ids);
  });

  it('a rejecting handle is retried, then the event is logged with its id and skipped; the next ones come', async () => {
    const { logger, lines } = captureLogger('warn');
    const attempts = new Map<string, number>();
    let failing = '';
    const ids: string[] = [];
    const subscriber: PluginEventSubscriber = {
      name: 'picky',
      handle(event) {
        attempts.set(event.id, (attempts.get(event.id) ?? 0) + 1);
        if (event.id === failing) throw new Error('the CRM refused it');
        ids.push(event.id);
      },
    };
    await feed(subscriber, { retryDelaysMs: [1, 1], logger }).start();
    const [first] = await handled(1);
    await until(() => ids.length === 1, 'the first event');
    const second = newUlid(Date.now());
    failing = second;
    bus.tell({ type: 'qrcode', qr: 'x', image: '', id: second, instance: 'ins_a', provider: 'whatsapp', receivedAt: Date.now() } as ChannelEvent);
    const [third] = await handled(1);
    await until(() => ids.length === 2, 'the event after the failing one');
    assert.deepEqual(ids, [first, third]);
    assert.equal(attempts.get(second), 3, 'the first attempt and two retries');
    const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'event subscriber failed after retries; event skipped');
    assert.equal(line?.event, second);
    assert.match(String((line?.error as { message?: string })?.message ?? line?.error), /the CRM refused it/);
  });

  it('a restarted feed starts from its saved cursor: the events logged while it was stopped come first, once, then live ones', async () => {
    const first = recorder();
    const before = feed(first);
    await before.start();
    const seen = await handled(3);
    await until(() => first.ids.length === 3, 'the first run');
    await before.stop();
    assert.deepEqual(await storage.state.get(SUBSCRIBER_CURSORS, 'recorder'), { cursor: seen[2] });
    const whileStopped = await handled(4, 'ins_a', false);
    const second = recorder();
    await feed(second).start();
    const live = await handled(2);
    await until(() => second.ids.length >= 6, 'the second run');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(second.ids, [...whileStopped, ...live]);
  });

  it('catching up stops below the bus\'s horizon: an event still in flight comes live, once', async () => {
    const first = recorder();
    const before = feed(first);
    await before.start();
    await before.stop();
    const logged = await handled(2, 'ins_a', false);
    // The next event is logged, but the bus is still handling it (an earlier id of another instance is in flight).
    bus.inFlight = logged[1];
    const second = recorder();
    await feed(second).start();
    await until(() => second.ids.length === 1, 'the events below the horizon');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(second.ids, [logged[0]]);
    bus.inFlight = undefined;
    bus.tell(JSON.parse((await storage.events.read({ after: logged[0], limit: 1 }))[0]!.event) as ChannelEvent);
    await until(() => second.ids.length === 2, 'the in-flight event, live');
    assert.deepEqual(second.ids, logged);
  });
});
