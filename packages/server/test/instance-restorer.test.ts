import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultInstanceFlags, defaultWebhookSettings, type ChannelDriver, type InstanceRecord, type Storage } from '@parley/core';
import { DEFAULT_RESTORE_PER_SECOND, InstanceRestorer } from '../src/instances/instance-restorer.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import { silentLogger } from './support.js';

function record(id: string, driver: string, wantsConnection = true): InstanceRecord {
  return {
    id, key: `key_${id}`, name: id, driver, createdAt: 0, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(), webhookSecret: 'whsec_x',
    user: null, phoneConnected: false, wantsConnection, health: 'healthy', driverOptions: {}, links: {},
  };
}

/**
 * A restorer over fakes: `queued` webhook deliveries and `inbox` driver-counted work per instance; every
 * restore records when it started (performance.now) and every connection takes `connectMs`, so the test
 * can check the bounds.
 */
function harness(options: {
  records: InstanceRecord[]; concurrency: number; perSecond?: Record<string, number>; connectMs: number;
  queued?: Record<string, number>; inbox?: Record<string, number>; failing?: Set<string>;
}) {
  const starts: { id: string; at: number; driver: string }[] = [];
  let inFlight = 0;
  let peak = 0;
  const byId = new Map(options.records.map((r) => [r.id, r]));
  const storage = {
    instances: { get: async (id: string) => byId.get(id) ?? null },
    deliveries: { stats: async (id: string) => ({ totalSent: 0, totalFailed: 0, totalPending: options.queued?.[id] ?? 0, avgResponseTime: 0 }) },
  } as unknown as Storage;
  const registry = {
    // A start is stamped when the restorer's task begins (its first call is load), the moment p-queue
    // counts: stamped later (in connect), a stalled event loop could bunch the stamps of starts that
    // p-queue spaced correctly.
    load: async (r: InstanceRecord) => (starts.push({ id: r.id, at: performance.now(), driver: r.driver }), {
      main: {
        capabilities: {
          connection: {
            connect: async () => {
              inFlight++;
              peak = Math.max(peak, inFlight);
              await new Promise((resolve) => setTimeout(resolve, options.connectMs));
              inFlight--;
              if (options.failing?.has(r.id)) throw new Error('refused');
            },
          },
        },
      },
    }),
  } as unknown as Pick<InstanceRegistry, 'load'>;
  const driver = (name: string, extra: Partial<ChannelDriver> = {}) => [name, { name, ...extra } as ChannelDriver] as const;
  const drivers = new Map([
    driver('sandbox', { restorePerSecond: 1000, pendingWork: async (id) => options.inbox?.[id] ?? 0 }),
    driver('whatsapp', { restorePerSecond: 2 }),
    driver('plain'),
  ]);
  const restorer = new InstanceRestorer({ storage, registry, drivers, config: { concurrency: options.concurrency, perSecond: options.perSecond ?? {} }, logger: silentLogger() });
  return { restorer, starts, peak: () => peak };
}

/** The most starts of one driver within any rolling `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('InstanceRestorer', () => {
  it('restores every instance, never more than `concurrency` of one driver at once, pending work first (the most first), the rest in the order given', async () => {
    const records = Array.from({ length: 500 }, (_, i) => record(`ins_${String(i).padStart(3, '0')}`, 'sandbox'));
    const { restorer, starts, peak } = harness({
      records, concurrency: 7, connectMs: 2,
      queued: { ins_499: 1, ins_250: 3 }, inbox: { ins_400: 2, ins_250: 1 },
    });
    const summary = await restorer.restore(records.map((r) => r.id));
    assert.deepEqual(summary, { restored: 500, failed: 0, skipped: 0 });
    assert.equal(starts.length, 500);
    assert.ok(peak() <= 7, `at most 7 connecting at once (peak ${peak()})`);
    assert.equal(peak(), 7, 'the bound is used');
    assert.deepEqual(starts.slice(0, 3).map((s) => s.id), ['ins_250', 'ins_400', 'ins_499'], 'pending work first, the most first');
    const rest = starts.slice(3).map((s) => s.id);
    assert.deepEqual(rest, records.map((r) => r.id).filter((id) => !['ins_250', 'ins_400', 'ins_499'].includes(id)), 'then the order given');
  });

  it('starts at most the driver\'s rate in any rolling second: configured over declared over the default; drivers do not hold each other up', async () => {
    const records = [
      ...Array.from({ length: 6 }, (_, i) => record(`wa_${i}`, 'whatsapp')),
      ...Array.from({ length: 30 }, (_, i) => record(`sb_${i}`, 'sandbox')),
      ...Array.from({ length: 12 }, (_, i) => record(`pl_${i}`, 'plain')),
    ];
    const { restorer, starts } = harness({ records, concurrency: 50, connectMs: 1, perSecond: { sandbox: 20 } });
    assert.equal(restorer.perSecond('whatsapp'), 2, 'declared by the driver');
    assert.equal(restorer.perSecond('sandbox'), 20, 'configured');
    assert.equal(restorer.perSecond('plain'), DEFAULT_RESTORE_PER_SECOND, 'the default');
    const begun = performance.now();
    const summary = await restorer.restoreRecords(records);
    assert.deepEqual(summary, { restored: 48, failed: 0, skipped: 0 });
    const of = (driver: string) => starts.filter((s) => s.driver === driver).map((s) => s.at);
    // p-queue's strict mode: no more than the cap in any rolling second (its own clock reads precede ours by a few µs).
    assert.equal(busiestWindow(of('whatsapp'), 995), 2);
    assert.equal(busiestWindow(of('sandbox'), 995), 20);
    assert.equal(busiestWindow(of('plain'), 995), 10);
    // 6 WhatsApp accounts at 2/s: the last starts in the third second.
    assert.ok(of('whatsapp')[5]! - begun >= 1990, `the sixth WhatsApp start waited two seconds (${of('whatsapp')[5]! - begun} ms)`);
    // The sandbox's 30 were not queued behind WhatsApp's: the 21st starts in the second second.
    assert.ok(of('sandbox')[29]! - begun < 1900, 'the sandbox finished its starts before WhatsApp');
  });

  it('counts failures, skips ids that are unknown or do not want a connection, and skips what waits when stopped', async () => {
    const records = [record('a', 'whatsapp'), record('b', 'whatsapp'), record('c', 'whatsapp', false), ...Array.from({ length: 5 }, (_, i) => record(`w${i}`, 'whatsapp'))];
    const { restorer, starts } = harness({ records, concurrency: 10, connectMs: 1, failing: new Set(['b']) });
    const running = restorer.restore(['a', 'b', 'c', 'missing', 'w0', 'w1', 'w2', 'w3', 'w4']);
    // WhatsApp at 2/s: a and b start at once, the others wait their turn.
    await new Promise((resolve) => setTimeout(resolve, 300));
    restorer.stop();
    assert.deepEqual(await running, { restored: 1, failed: 1, skipped: 2 + 5 });
    assert.deepEqual(starts.map((s) => s.id), ['a', 'b']);
  });

  it('throttles other starts (a cluster node taking instances over) with the same per-driver bound and rate as its restores', async () => {
    const { restorer } = harness({ records: [], concurrency: 2, connectMs: 1 });
    let inFlight = 0;
    let peak = 0;
    const at: number[] = [];
    const start = () => restorer.throttle('whatsapp', async () => {
      at.push(performance.now());
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return 'started';
    });
    assert.deepEqual(await Promise.all([start(), start(), start()]), ['started', 'started', 'started']);
    assert.ok(peak <= 2, `at most 2 at once (peak ${peak})`);
    assert.equal(busiestWindow(at, 995), 2, 'WhatsApp\'s 2 per second hold for takeovers too');
    restorer.stop();
    await assert.rejects(start(), 'a start after stop() is refused');
  });
});
