import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { defaultInstanceFlags, defaultWebhookSettings, newUlid, type ChannelEvent, type InstanceRecord, type StorageSignals } from '@parley/core';
import { RedisStorage } from '@parley/storage-redis';
import { deleteKeys } from '@parley/storage-redis/testing';
import { serviceUrlOrSkip } from '@parley/testkit';
import { CLUSTER_EVENTS_TOPIC, EventFanIn } from '../src/cluster/event-fan-in.js';
import type { EventWatcher } from '../src/events/event-bus.js';
import { silentLogger } from './support.js';

const TIMING = { renewMs: 100, ttlMs: 400, ackTimeoutMs: 2_000 };

const record = (id: string): InstanceRecord => ({
  id, key: `key-${id}`, name: id, driver: 'sandbox', createdAt: 0, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(),
  webhookSecret: `whsec_${id}`, user: null, phoneConnected: false, wantsConnection: false, health: 'healthy', driverOptions: {}, links: {},
});

const event = (instance: string): ChannelEvent => ({
  id: newUlid(Date.now()), instance, provider: 'whatsapp', receivedAt: Date.now(), type: 'presence', jid: 'x@s.whatsapp.net', status: 'available',
}) as ChannelEvent;

/** One node's fan-in over its own Redis connection, with a bus and a hub that record. */
class Node {
  watchers: EventWatcher[] = [];
  offered: ChannelEvent[] = [];
  admin = 0;
  readonly fanIn: EventFanIn;

  constructor(readonly id: string, signals: StorageSignals, peers: () => string[]) {
    this.fanIn = new EventFanIn({
      nodeId: id, signals, clock: { now: () => Date.now() }, peers: async () => peers().filter((p) => p !== id), logger: silentLogger(),
      bus: { watch: (w) => (this.watchers.push(w), () => undefined) },
      hub: { adminCount: () => this.admin, offerAdmin: (e) => void this.offered.push(e), endAdmin: () => undefined },
      record: async (instance) => record(instance), watchTiming: TIMING,
    });
  }

  /** The bus handled an event of this node (it is in the shared log). */
  handled(e: ChannelEvent): void {
    for (const w of this.watchers) w(e, record(e.instance));
  }
}

const until = async (check: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('cluster event fan-in: nodes publish their events only while an admin stream is open somewhere', () => {
  const url = serviceUrlOrSkip('REDIS_URL', 'cluster event fan-in');
  if (!url) return;
  const prefix = `parley-test:fan-in:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const stores = [1, 2, 3].map(() => new RedisStorage({ url, keyPrefix: prefix }));
  let nodes: Node[];
  const published: string[] = [];

  before(async () => {
    await Promise.all(stores.map((s) => s.init()));
    const ids = ['n1', 'n2', 'n3'];
    nodes = ids.map((id, i) => new Node(id, stores[i]!.signals(), () => ids));
    await Promise.all(nodes.map((n) => n.fanIn.start()));
    await stores[2]!.signals().subscribe(CLUSTER_EVENTS_TOPIC, (m) => void published.push((JSON.parse(m) as { node: string }).node));
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.fanIn.stop()));
    await Promise.all(stores.map((s) => s.close()));
    await deleteKeys(url, prefix);
  });

  it('a node that just started publishes; once nobody watches it stops', async () => {
    const [n1] = nodes;
    n1!.handled(event('a'));
    await until(() => published.includes('n1'), 'n1 publishing while it has not heard anyone');
    await new Promise((r) => setTimeout(r, TIMING.ttlMs + 50));
    published.length = 0;
    n1!.handled(event('a'));
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(published, [], 'no signal without an admin stream anywhere');
  });

  it('an admin stream asks and waits until both other nodes confirm; they publish while it is open and stop after it closes', async () => {
    const [n1, n2, n3] = nodes as [Node, Node, Node];
    n3.admin = 1;
    await n3.fanIn.watching();
    // Confirmed by both: anything they handle from now on reaches n3 live.
    const fromN1 = event('b');
    const fromN2 = event('c');
    n1.handled(fromN1);
    n2.handled(fromN2);
    await until(() => n3.offered.length === 2, 'both events offered to n3');
    assert.deepEqual(n3.offered.map((e) => e.id).sort(), [fromN1.id, fromN2.id].sort());
    // Renewed while the stream stays open, well past the time to live.
    await new Promise((r) => setTimeout(r, TIMING.ttlMs * 2));
    const later = event('d');
    n1.handled(later);
    await until(() => n3.offered.some((e) => e.id === later.id), 'an event long after the ask');
    // A second stream on n3 does not ask again.
    assert.equal(n3.fanIn.watching(), n3.fanIn.watching());

    n3.admin = 0;
    await new Promise((r) => setTimeout(r, TIMING.renewMs + TIMING.ttlMs + 100));
    published.length = 0;
    n1.handled(event('e'));
    n2.handled(event('e'));
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(published, [], 'the watch lapsed');
  });

  it('another audience (an MCP session\'s subscriptions) that wants events makes the nodes publish, and is offered them like the admin streams', async () => {
    const [n1, n2, n3] = nodes as [Node, Node, Node];
    const heard: ChannelEvent[] = [];
    let wants = false;
    n3.fanIn.add({ wanted: () => wants, offer: (e) => void heard.push(e), missed: () => undefined });
    wants = true;
    await n3.fanIn.watching();
    const fromN1 = event('f');
    n1.handled(fromN1);
    await until(() => heard.some((e) => e.id === fromN1.id), 'the event offered to the audience');
    assert.deepEqual(n3.offered.filter((e) => e.id === fromN1.id), [], 'no admin stream is open on n3: the hub is offered nothing');
    // Renewed while it wants them, past the time to live.
    await new Promise((r) => setTimeout(r, TIMING.ttlMs * 2));
    const later = event('g');
    n2.handled(later);
    await until(() => heard.some((e) => e.id === later.id), 'an event long after the ask');

    wants = false;
    await new Promise((r) => setTimeout(r, TIMING.renewMs + TIMING.ttlMs + 100));
    published.length = 0;
    n1.handled(event('h'));
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(published, [], 'the watch lapsed once the audience stopped wanting');
  });
});
