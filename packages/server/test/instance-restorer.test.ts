import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultInstanceFlags, defaultWebhookSettings, type ChannelDriver, type InstanceRecord, type Storage } from '@parley/core';
import { eventually, FakeClock } from '@parley/testkit';
import { DEFAULT_RESTORE_PER_SECOND, InstanceRestorer } from '../src/instances/instance-restorer.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import { silentLogger } from './support.js';

function record(id: string, driver: string, wantsConnection = true): InstanceRecord {
  return {
    id, key: `key_${id}`, name: id, driver, createdAt: 0, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(), webhookSecret: 'whsec_x',
    user: null, phoneConnected: false, wantsConnection, health: 'healthy', driverOptions: {}, links: {},
  };
}

/** How often a start waiting for its rate reads the fake clock again. */
const RECHECK_MS = 2;

/**
 * A restorer over fakes on a {@link FakeClock} that stands still until a test advances it:
 * `queued` webhook deliveries and `inbox` driver-counted work per instance; every restore records when
 * it started (the clock's time) and every connection takes `connectMs` of real time, so the test can
 * check the bounds.
 */
function harness(options: {
  records: InstanceRecord[]; concurrency: number; perSecond?: Record<string, number>; connectMs: number;
  queued?: Record<string, number>; inbox?: Record<string, number>; failing?: Set<string>;
}) {
  const clock = new FakeClock();
  const starts: { id: string; at: number; driver: string }[] = [];
  let inFlight = 0;
  let peak = 0;
  const byId = new Map(options.records.map((r) => [r.id, r]));
  const storage = {
    instances: { get: async (id: string) => byId.get(id) ?? null },
    deliveries: { stats: async (id: string) => ({ totalSent: 0, totalFailed: 0, totalPending: options.queued?.[id] ?? 0, avgResponseTime: 0 }) },
  } as unknown as Storage;
  const registry = {
    // A start is stamped when the restorer's task calls load, right after its rate counted it.
    load: async (r: InstanceRecord) => (starts.push({ id: r.id, at: clock.now(), driver: r.driver }), {
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
  const restorer = new InstanceRestorer({ storage, registry, drivers, config: { concurrency: options.concurrency, perSecond: options.perSecond ?? {} }, logger: silentLogger(),
    clock, recheckMs: RECHECK_MS,
  });
  return { restorer, starts, clock, peak: () => peak };
}

/**
 * Lets the restorer's waiting starts read the standing clock many times over: whatever they may start
 * has started after it (a start the clock does not allow never does, however long this waits).
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, RECHECK_MS * 25));

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

  it('starts at most the driver\'s rate in any rolling second of the clock: configured over declared over the default; drivers do not hold each other up', async () => {
    const records = [
      ...Array.from({ length: 6 }, (_, i) => record(`wa_${i}`, 'whatsapp')),
      ...Array.from({ length: 30 }, (_, i) => record(`sb_${i}`, 'sandbox')),
      ...Array.from({ length: 12 }, (_, i) => record(`pl_${i}`, 'plain')),
    ];
    const { restorer, starts, clock } = harness({ records, concurrency: 50, connectMs: 1, perSecond: { sandbox: 20 } });
    assert.equal(restorer.perSecond('whatsapp'), 2, 'declared by the driver');
    assert.equal(restorer.perSecond('sandbox'), 20, 'configured');
    assert.equal(restorer.perSecond('plain'), DEFAULT_RESTORE_PER_SECOND, 'the default');
    const begun = clock.now();
    const started = () => {
      const out: Record<string, number> = { whatsapp: 0, sandbox: 0, plain: 0 };
      for (const s of starts) out[s.driver]!++;
      return out;
    };
    const reaches = async (expected: Record<string, number>, step: string) => {
      assert.ok(await eventually(async () => JSON.stringify(started()) === JSON.stringify(expected), 200, 5), `${step}: ${JSON.stringify(started())}`);
      await settle();
      assert.deepEqual(started(), expected, `${step}: nothing more starts while the clock stands`);
    };
    const running = restorer.restoreRecords(records);
    // The first second: each driver its own rate at once (the sandbox's 20 are not queued behind WhatsApp's 2).
    await reaches({ whatsapp: 2, sandbox: 20, plain: 10 }, 'second 0');
    // The rate counts in the clock's time, not the timers': a real second passing starts nothing.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.deepEqual(started(), { whatsapp: 2, sandbox: 20, plain: 10 }, 'a real second, the clock standing');
    clock.advance(999);
    await reaches({ whatsapp: 2, sandbox: 20, plain: 10 }, 'a millisecond before second 1');
    clock.advance(1);
    await reaches({ whatsapp: 4, sandbox: 30, plain: 12 }, 'second 1');
    clock.advance(1000);
    await reaches({ whatsapp: 6, sandbox: 30, plain: 12 }, 'second 2');
    assert.deepEqual(await running, { restored: 48, failed: 0, skipped: 0 });
    const at = (driver: string) => starts.filter((s) => s.driver === driver).map((s) => s.at - begun);
    assert.deepEqual(at('whatsapp'), [0, 0, 1000, 1000, 2000, 2000]);
    assert.deepEqual(at('sandbox'), [...Array(20).fill(0), ...Array(10).fill(1000)]);
  });

  it('counts failures, skips ids that are unknown or do not want a connection, and skips what waits when stopped', async () => {
    const records = [record('a', 'whatsapp'), record('b', 'whatsapp'), record('c', 'whatsapp', false), ...Array.from({ length: 5 }, (_, i) => record(`w${i}`, 'whatsapp'))];
    const { restorer, starts } = harness({ records, concurrency: 10, connectMs: 1, failing: new Set(['b']) });
    const running = restorer.restore(['a', 'b', 'c', 'missing', 'w0', 'w1', 'w2', 'w3', 'w4']);
    // WhatsApp at 2/s: a and b start at once, the others wait for a second the clock does not give.
    assert.ok(await eventually(async () => starts.length === 2, 200, 5));
    await settle();
    restorer.stop();
    assert.deepEqual(await running, { restored: 1, failed: 1, skipped: 2 + 5 });
    assert.deepEqual(starts.map((s) => s.id), ['a', 'b']);
  });

  it('throttles other starts (a cluster node taking instances over) with the same per-driver bound and rate as its restores', async () => {
    const { restorer, clock } = harness({ records: [], concurrency: 2, connectMs: 1 });
    const begun = clock.now();
    let inFlight = 0;
    let peak = 0;
    const at: number[] = [];
    const start = () => restorer.throttle('whatsapp', async () => {
      at.push(clock.now() - begun);
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return 'started';
    });
    const all = Promise.all([start(), start(), start()]);
    assert.ok(await eventually(async () => at.length === 2, 200, 5));
    await settle();
    assert.equal(at.length, 2, 'WhatsApp\'s 2 per second hold for takeovers too');
    clock.advance(1000);
    assert.deepEqual(await all, ['started', 'started', 'started']);
    assert.deepEqual(at, [0, 0, 1000]);
    assert.ok(peak <= 2, `at most 2 at once (peak ${peak})`);
    restorer.stop();
    await assert.rejects(start(), 'a start after stop() is refused');
  });
});
