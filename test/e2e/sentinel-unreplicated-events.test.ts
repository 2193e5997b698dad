import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SentinelSet } from '@parley/storage-redis/testing';
import { freePort, startHttpReceiver, TcpProxy, type HttpReceiver } from '@parley/testkit';
import { startTestServer, type TestServer } from '../support/test-server.js';

const ALICE = '5511975000001';
const BOB = '5511975000002';
const TEXTS = ['unconfirmed 1', 'unconfirmed 2', 'unconfirmed 3'];

interface Line { level: number; msg: string; [field: string]: unknown }

/**
 * Redis with Sentinel, the replica's link to the master silenced (a proxy): every flush answers
 * `not_replicated`. The events a channel hands over meanwhile are kept as written on the master —
 * stored, their webhooks delivered once, not held, not retried, not counted as dropped — with one
 * warning (docs/events.md, *When storage is unavailable*).
 */
describe('inbound events whose writes no Redis replica confirms', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-unreplicated-'));
  let set: SentinelSet;
  let link: TcpProxy;
  let receiver: HttpReceiver;
  let t: TestServer;

  before(async () => {
    const master = await freePort();
    link = new TcpProxy('127.0.0.1', master);
    await link.start();
    set = new SentinelSet(dir, { master, replicas: [await freePort()], sentinels: [await freePort(), await freePort(), await freePort()] }, link.port);
    await set.start();
    receiver = await startHttpReceiver();
    t = await startTestServer({
      captureLogs: true,
      plugins: [
        {
          package: '@parley/storage-redis',
          options: { url: 'redis://unused:6379', sentinel: { name: set.name, nodes: set.nodes }, keyPrefix: 'parley:', pingIntervalMs: 200, commandTimeoutMs: 2_000, waitTimeoutMs: 300 },
        },
        { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' },
      ],
      config: { webhooks: { timeoutMs: 1_000, leaseMs: 3_000 } },
    });
  });

  after(async () => {
    await t?.stop();
    await receiver?.close();
    await set?.stop();
    await link?.cut();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps them as written: stored and delivered once, nothing held or dropped, one warning', { timeout: 120_000 }, async () => {
    const alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
    const bob = await t.connectedSandbox({ name: 'bob', number: BOB, webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/hook` } });
    // bob's events wait on his chain until the replica is cut off.
    let release!: () => void;
    const held = t.server.context.bus.run(bob.id, () => new Promise<void>((resolve) => (release = resolve)));
    for (const text of TEXTS) assert.equal((await t.request('POST', `/${alice.key}/message/text`, { to: BOB, text })).status, 200);
    await t.waitFor(async () => {
      const history = await t.request('GET', `/${alice.key}/chat/${BOB}/messages?limit=100`);
      return history.body.data.length === TEXTS.length && history.body.data.every((m: { status: string }) => m.status === 'DELIVERY_ACK');
    }, 15_000, 'bob\'s phone to take every message in');
    link.blackhole();
    release();
    await held;
    await t.server.context.bus.processed(bob.id);
    const stored = await t.request('GET', `/${bob.key}/chat/${ALICE}/messages?limit=100`);
    assert.equal(stored.status, 200);
    assert.deepEqual(new Set((stored.body.data as unknown[]).map((m) => JSON.stringify(m).match(/unconfirmed \d/)?.[0])), new Set(TEXTS));
    const deliveriesOf = (text: string) => receiver.requests.filter((r) => r.body.includes(`"${text}"`)).length;
    await t.waitFor(() => TEXTS.every((text) => deliveriesOf(text) >= 1), 20_000, 'every webhook');
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    assert.deepEqual(TEXTS.map(deliveriesOf), TEXTS.map(() => 1), 'each webhook delivered exactly once');
    const lines = t.logs.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
    // Every event counted in parley_events_dropped_total is logged with one of these.
    assert.deepEqual(lines.filter((l) => /event handling|did not commit/.test(l.msg)), [], 'nothing retried as a failure, given up or dropped');
    const warned = lines.filter((l) => l.msg === 'the writes of handled events were not confirmed by a replica; kept as written on the master');
    assert.equal(warned.length, 1, 'one warning for the minute');
    assert.equal(warned[0]!.level, 40);
  });
});
