import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ParleyConfig } from '@parley/server';
import { eventually, serviceUrlOrSkip, type TcpProxy } from '@parley/testkit';
import { startOutageServer, type OutageServer } from '../support/postgres-outage.js';
import type { TestServer } from '../support/test-server.js';

const serverUrl = serviceUrlOrSkip('DATABASE_URL', 'inbound events through a storage outage');

const ALICE = '5511931000001';
const BOB = '5511931000002';
const MESSAGES = 10;
/** Each half of the outage: the database silent (queries time out), then refusing connections. */
const HALF_OUTAGE_MS = 4_000;

/**
 * Issue 29: messages a channel hands the server while storage is unreachable are held by the event
 * bus, in order, and stored and delivered to their webhook once storage is back — the outage (8 s)
 * outlasting by far the short retry that used to drop them after about 2.6 s. PostgreSQL, through a
 * proxy: its sandbox network has no inbox re-reads (no signals), so an event the bus dropped is never
 * handed over again and the loss shows.
 */
/**
 * alice sends bob `texts` (bob's webhook: `hook`); bob's phone takes each in before storage is cut, and the events it
 * publishes wait on bob's event chain (a task there holds them) until `release` is called: then they
 * reach the subscribers while the outage lasts.
 */
async function heldInbound(t: TestServer, hook: string, texts: readonly string[]) {
  const alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
  const bob = await t.connectedSandbox({ name: 'bob', number: BOB, webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: hook } });
  let release!: () => void;
  const held = t.server.context.bus.run(bob.id, () => new Promise<void>((resolve) => (release = resolve)));
  for (const text of texts) {
    const sent = await t.request('POST', `/${alice.key}/message/text`, { to: BOB, text });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
  }
  // bob's phone acknowledges each message once it has published its event: then all wait on the bus.
  await t.waitFor(async () => {
    const history = await t.request('GET', `/${alice.key}/chat/${BOB}/messages?limit=100`);
    return history.body.data.length === texts.length && history.body.data.every((m: { status: string }) => m.status === 'DELIVERY_ACK');
  }, 15_000, 'bob\'s phone to acknowledge every message');
  assert.equal((await t.request('GET', `/${bob.key}/chat/${ALICE}/messages`)).body.total, 0, 'nothing of it handled yet');
  return { alice, bob, release: async () => { release(); await held; } };
}

if (serverUrl) {
  describe('inbound messages while PostgreSQL is unreachable', () => {
    let s: OutageServer | undefined;
    before(async () => {
      s = await startOutageServer(serverUrl, 'busoutage', { webhooks: { timeoutMs: 1_000, leaseMs: 2_500 } });
    });
    after(() => s?.close());

    it('holds the events the channel publishes during the outage and stores each message and delivers its webhook exactly once after', { timeout: 90_000 }, async () => {
      const { t, proxy, receiver } = s!;
      const texts = Array.from({ length: MESSAGES }, (_, i) => `during the outage ${i}`);
      const { bob, release } = await heldInbound(t, `${receiver.url}/hook`, texts);
      proxy.blackhole();
      await release();
      await new Promise((resolve) => setTimeout(resolve, HALF_OUTAGE_MS));
      assert.equal((await t.request('GET', '/readyz')).status, 503, '/readyz reports the silent database');
      await proxy.refuse();
      await new Promise((resolve) => setTimeout(resolve, HALF_OUTAGE_MS));
      assert.equal((await t.request('GET', '/readyz')).status, 503, '/readyz reports the refusing database');
      const deliveriesOf = (text: string) => receiver.requests.filter((r) => r.body.includes(`"${text}"`)).length;
      assert.deepEqual(texts.map(deliveriesOf), texts.map(() => 0), 'no message webhook while storage is down');
      await proxy.pass();
      assert.ok(await eventually(async () => (await t.request('GET', '/readyz')).status === 200, 100, 100), '/readyz recovers');

      const stored = await t.waitFor(async () => {
        const history = await t.request('GET', `/${bob.key}/chat/${ALICE}/messages?limit=100`);
        // The page and its total are two reads: a message stored between them is counted but not listed yet.
        return history.status === 200 && history.body.total === MESSAGES && history.body.data.length === MESSAGES ? history.body.data as unknown[] : undefined;
      }, 30_000, 'every message to be stored at bob');
      assert.deepEqual(new Set(stored.map((m) => JSON.stringify(m).match(/during the outage \d+/)?.[0])), new Set(texts));
      await t.waitFor(() => texts.every((text) => deliveriesOf(text) >= 1), 30_000, 'every message\'s webhook');
      // Late duplicates would come with a webhook retry (leaseMs 2.5 s): wait past it.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.deepEqual(texts.map(deliveriesOf), texts.map(() => 1), 'each webhook delivered exactly once');
      assert.deepEqual(t.logs.filter((l) => /given up|failed after retries/.test(l)), [], 'no event given up');
    });
  });

  describe('events routed to no webhook while PostgreSQL is unreachable', () => {
    const OUTAGE_MS = 5_000;
    let s: OutageServer | undefined;
    before(async () => {
      s = await startOutageServer(serverUrl, 'buslog');
    });
    after(() => s?.close());

    it('logs each one once storage is back: its event-log write waits the outage out like the others', { timeout: 60_000 }, async () => {
      const { t, proxy } = s!;
      await t.connectedSandbox({ name: 'alice', number: ALICE });
      const bob = await t.connectedSandbox({ name: 'bob', number: BOB });
      const api = t.client(bob.key);
      assert.equal((await api.call('updateInstanceFlags', { query: { receivePresence: true } })).status, 200);
      // Presence events: nothing of them is stored but their event-log entry, and no webhook is set.
      let release!: () => void;
      const held = t.server.context.bus.run(bob.id, () => new Promise<void>((resolve) => (release = resolve)));
      const PRESENCES = 3;
      for (let i = 0; i < PRESENCES; i++) assert.equal((await api.call('subscribePresence', { body: { jid: ALICE } })).status, 200);
      await proxy.refuse();
      release();
      await held;
      // Well past the 2.6 s of short retries that used to give such an entry up.
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      await proxy.pass();
      await t.server.context.bus.drain();
      const presences = t.events.filter((e) => e.instance === bob.id && e.type === 'presence').map((e) => e.id);
      assert.equal(presences.length, PRESENCES);
      const logged = (await t.server.context.storage.events.read({ instance: bob.id, limit: 100 })).map((e) => e.id);
      assert.deepEqual(presences.filter((id) => !logged.includes(id)), [], 'every presence event is in the event log');
      assert.deepEqual(t.logs.filter((l) => /given up|failed after retries|append failed/.test(l)), [], 'nothing given up');
    });
  });

  describe('a shutdown while PostgreSQL is unreachable', () => {
    const SHUTDOWN_MS = 3_000;
    /** What the stop may take past its bound: the event loop's turns between its steps. */
    const SLACK_MS = 250;
    const refuse = (proxy: TcpProxy) => proxy.refuse();
    const blackhole = async (proxy: TcpProxy) => proxy.blackhole();
    /**
     * A node of a cluster (alone in it) hands its instances over first, its lease releases waiting for the
     * command time-out: the events' grace still counts from the signal.
     */
    const node: Partial<ParleyConfig> = {
      cluster: {
        nodeId: 'solo', advertiseUrl: 'http://127.0.0.1:9', secret: randomBytes(32).toString('hex'),
        leaseTtlMs: 15_000, renewIntervalMs: 5_000, driftMarginMs: 1_000, handoverWaitMs: 2_000, movesPerMinute: 30, deadNodeRetentionMs: 60_000,
      },
    };
    /** Refused: every statement fails at once. Blackholed: each waits for the store's command time-out (1 s) — a try in flight at the grace's end is not waited for. */
    const cases: [string, (proxy: TcpProxy) => Promise<void>, Partial<ParleyConfig>][] = [
      ['refused', refuse, {}], ['blackholed', blackhole, {}], ['blackholed, on a cluster node', blackhole, node],
    ];
    for (const [how, cut, config] of cases) {
      describe(how, () => {
        let s: OutageServer | undefined;
        before(async () => {
          s = await startOutageServer(serverUrl, `busstop${how.replace(/\W/g, '').slice(0, 12)}`, { shutdownTimeoutMs: SHUTDOWN_MS, ...config });
        });
        after(() => s?.close());

        it('ends within shutdownTimeoutMs, giving up the held events with a log line naming them', { timeout: 60_000 }, async () => {
          const { t, proxy, receiver } = s!;
          const { release } = await heldInbound(t, `${receiver.url}/hook`, ['held at the stop 1', 'held at the stop 2']);
          await cut(proxy);
          await release();
          const started = performance.now();
          await t.server.close();
          const took = performance.now() - started;
          const lines = t.logs.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; reason?: string; events?: string[] });
          assert.ok(took < SHUTDOWN_MS + SLACK_MS, `the stop took ${Math.round(took)} ms:\n${lines.slice(-12).map((l) => l.msg).join('\n')}`);
          const given = lines.filter((l) => l.msg === 'event handling given up: storage stayed unavailable');
          assert.ok(given.length >= 1 && given.every((l) => l.reason === 'shutdown' && l.events!.length >= 1), JSON.stringify(given));
        });
      });
    }
  });

  describe('messages the sandbox network hands over while PostgreSQL is unreachable', () => {
    /** The network's latency: the hand-overs of the sends fall into the outage that follows them. */
    const LATENCY_MS = 3_000;
    let s: OutageServer | undefined;
    before(async () => {
      s = await startOutageServer(serverUrl, 'busnet', { webhooks: { timeoutMs: 1_000, leaseMs: 2_500 } }, { latencyMs: LATENCY_MS, inboxRecheckMs: 1_000 });
    });
    after(() => s?.close());

    it('hands a packet whose hand-over failed over again once storage is back (no signals to wake it): stored and delivered once', { timeout: 90_000 }, async () => {
      const { t, proxy, receiver } = s!;
      const alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
      const bob = await t.connectedSandbox({ name: 'bob', number: BOB, webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/hook` } });
      const texts = ['handed over in the outage 1', 'handed over in the outage 2'];
      for (const text of texts) assert.equal((await t.request('POST', `/${alice.key}/message/text`, { to: BOB, text })).status, 200);
      await proxy.refuse();
      await new Promise((resolve) => setTimeout(resolve, LATENCY_MS + 3_000));
      await proxy.pass();
      const deliveriesOf = (text: string) => receiver.requests.filter((r) => r.body.includes(`"${text}"`)).length;
      await t.waitFor(async () => (await t.request('GET', `/${bob.key}/chat/${ALICE}/messages`)).body.total === texts.length, 30_000, 'both messages stored at bob');
      await t.waitFor(() => texts.every((text) => deliveriesOf(text) >= 1), 30_000, 'both webhooks');
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.deepEqual(texts.map(deliveriesOf), [1, 1], 'each webhook delivered exactly once');
      assert.ok(t.logs.some((l) => l.includes('sandbox delivery failed')), 'a hand-over did fail in the outage');
    });
  });
}
