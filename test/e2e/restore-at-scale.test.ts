import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** Instances restored; the last PENDING of them have webhook deliveries queued at the restart. */
const N = 500;
const PENDING = 10;
const CONCURRENCY = 8;
const SANDBOX_PER_SECOND = 250;
/** A webhook nobody answers (port 1 refuses), retried only after a long wait: its deliveries stay queued. */
const DEAD_HOOK = { allowWebhook: true, webhookFormat: 'native' as const, webhookMessage: 'http://127.0.0.1:1/hook' };
const CONFIG = { webhooks: { retry: { schedule: [600_000], jitter: 0 } } };

interface LogLine {
  msg: string;
  /** ISO time (the server's pino timestamps). */
  time: string;
  /** Of a start: the clock time the restorer's rate counted it at. */
  startedAt?: number;
  instance?: string;
  pendingWork?: number;
  restored?: number;
  failed?: number;
  skipped?: number;
}

/**
 * A restart with N sandbox instances on SQLite: the real server restores all of them through the
 * restorer, never more than `restore.concurrency` connecting at once, at most the sandbox's rate of
 * starts per rolling second, and the instances with pending work (queued webhook deliveries) first.
 * The order and the bounds are read from the restorer's own debug lines, in the order it wrote them.
 */
describe(`restore at scale: a restart with ${N} sandbox instances`, () => {
  let dataDir: string;
  let t: TestServer | undefined;
  const ids: string[] = [];
  const pendingIds = new Set<string>();
  let lines: LogLine[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-restore-scale-'));
    const first = await startTestServer({ storage: 'sqlite', dataDir, config: CONFIG });
    t = first;
    let next = 0;
    const worker = async () => {
      while (next < N) {
        const i = next++;
        const number = `55119760${String(i).padStart(5, '0')}`;
        const instance = await first.createInstance({ name: `n${i}`, number, ...(i >= N - PENDING ? { webhook: DEAD_HOOK } : {}) });
        const api = first.client(instance.key);
        await api.call('connectInstance');
        await api.call('sandbox_post_key_scan');
        ids[i] = instance.id;
        if (i >= N - PENDING) pendingIds.add(instance.id);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await first.settle();
    for (const id of pendingIds) {
      await first.waitFor(async () => (await first.server.context.storage.deliveries.stats(id)).totalPending > 0, 5000, `queued deliveries of ${id}`);
    }
    await first.stop();

    t = await startTestServer({
      storage: 'sqlite', dataDir, captureLogs: true,
      config: { ...CONFIG, restore: { concurrency: CONCURRENCY, perSecond: { sandbox: SANDBOX_PER_SECOND } } },
    });
    await t.server.restored();
    lines = t.logs.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((l) => JSON.parse(l) as LogLine);
  });
  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const starts = () => lines.filter((l) => l.msg === 'restoring instance');

  it('restores every instance: all connected again', async () => {
    const summary = lines.find((l) => l.msg === 'instances restored');
    assert.deepEqual({ restored: summary?.restored, failed: summary?.failed, skipped: summary?.skipped }, { restored: N, failed: 0, skipped: 0 });
    assert.deepEqual(new Set(starts().map((l) => l.instance)), new Set(ids));
    const open = () => t!.server.context.registry.loaded().filter((r) => r.main.capabilities.connection?.state().phoneConnected === true).map((r) => r.record.id);
    await t!.waitFor(() => open().length === N, 10_000, 'every instance connected');
    assert.deepEqual(new Set(open()), new Set(ids));
  });

  it('serves the instances with pending work first', async () => {
    const first = starts().slice(0, PENDING);
    assert.deepEqual(new Set(first.map((l) => l.instance)), pendingIds);
    for (const l of first) assert.ok(l.pendingWork! > 0, `${l.instance} had pending work`);
    assert.ok(starts().slice(PENDING).every((l) => l.pendingWork === 0));
    // The rest in creation order (the order storage lists them).
    const created = (await t!.server.context.storage.instances.list()).map((r) => r.id).filter((id) => !pendingIds.has(id));
    assert.deepEqual(starts().slice(PENDING).map((l) => l.instance), created);
  });

  it('never more than restore.concurrency connecting at once', () => {
    let inFlight = 0;
    let peak = 0;
    for (const l of lines) {
      if (l.msg === 'restoring instance') peak = Math.max(peak, ++inFlight);
      else if (l.msg === 'instance restored' || l.msg === 'instance could not be restored') inFlight--;
    }
    assert.ok(peak <= CONCURRENCY, `peak ${peak}`);
    assert.ok(peak > 1, 'instances were restored concurrently');
  });

  it('at most the sandbox rate of starts per rolling second', () => {
    // The times the rate counted (a line's own time comes later, by however long its task waited for the event loop).
    const times = starts().map((l) => l.startedAt!);
    assert.ok(times.every((at) => Number.isInteger(at)), 'every start names its time');
    let most = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    assert.ok(most <= SANDBOX_PER_SECOND, `${most} starts in one second`);
    const span = times.at(-1)! - times[0]!;
    assert.ok(span >= (Math.ceil(N / SANDBOX_PER_SECOND) - 1) * 1000, `${N} starts at ${SANDBOX_PER_SECOND}/s took ${span} ms`);
  });
});
