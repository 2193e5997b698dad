import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import { newUlid, type LoggedEvent } from '@parley/core';
import { FakeClock } from './fake-clock.js';
import { newDelivery, uniqueId } from './storage-fixtures.js';
import { reopenStorage, withStorage, type OutboxHarness } from './storage-harness.js';

const T = 1_700_000_000_000;

/** A log entry of `instance` received at `at`, its id made at that time (as the event bus makes them). */
function entry(instance: string, at: number, type = 'message'): LoggedEvent {
  const id = newUlid(at);
  return { id, instance, type, at, event: JSON.stringify({ id, type, instance, provider: 'whatsapp', receivedAt: at, text: `ünïcode ${at}` }) };
}

const ids = (entries: LoggedEvent[]): string[] => entries.map((e) => e.id);

/** EventLog: ordered appends, paged reads per instance and across instances, retention purges, per-instance clears. */
export function describeEventLogCases(harness: OutboxHarness): void {
  describe('event log', () => {
    it('reads entries back exactly, in id order, after an exclusive position, up to limit', () => withStorage(harness, async ({ events }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      const [a1, b1, a2, b2, a3] = [entry(a, T), entry(b, T + 1), entry(a, T + 2, 'message.status'), entry(b, T + 3), entry(a, T + 3, 'qrcode')];
      // Instances' lanes append independently: a later id may be written first.
      await events.append([b1!, a2!]);
      await events.append([a1!]);
      await events.append([b2!, a3!]);
      await events.append([]);
      const all = await events.read({ limit: 100 });
      assert.deepEqual(all, [a1, b1, a2, a3, b2].sort((x, y) => (x!.id < y!.id ? -1 : 1)));
      assert.deepEqual(await events.read({ instance: a, limit: 100 }), [a1, a2, a3]);
      assert.deepEqual(ids(await events.read({ instance: a, after: a1!.id, limit: 100 })), ids([a2!, a3!]));
      assert.deepEqual(ids(await events.read({ instance: b, after: b1!.id, limit: 1 })), [b2!.id]);
      assert.deepEqual(ids(await events.read({ after: a1!.id, limit: 2 })), ids(all.slice(1, 3)));
      assert.deepEqual(await events.read({ instance: a, after: a3!.id, limit: 10 }), []);
      assert.deepEqual(await events.read({ instance: uniqueId('ins'), limit: 10 }), []);
    }));

    it('a position that names no entry still pages; a repeated id appends nothing', () => withStorage(harness, async ({ events }) => {
      const a = uniqueId('ins');
      const first = entry(a, T);
      const second = entry(a, T + 10);
      await events.append([first, second]);
      await events.append([{ ...first, type: 'changed', event: '{"changed":true}' }]);
      assert.deepEqual(await events.read({ instance: a, limit: 10 }), [first, second]);
      const between = newUlid(T + 5);
      assert.deepEqual(await events.read({ instance: a, after: between, limit: 10 }), [second]);
      assert.deepEqual(await events.read({ after: '0', limit: 10 }), [first, second]);
      assert.deepEqual(await events.read({ after: '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', limit: 10 }), []);
    }));

    it('a long append, with an id repeated in it, stores each id once, the first of it', () => withStorage(harness, async ({ events }) => {
      const a = uniqueId('ins');
      // Longer than a back end may write in one statement (SQLite: 64 entries), repeats within and across its parts.
      const many = Array.from({ length: 150 }, (_, i) => entry(a, T + i));
      const repeated = (i: number): LoggedEvent => ({ ...many[i]!, type: 'changed', event: '{"changed":true}' });
      await events.append([...many.slice(0, 10), repeated(3), ...many.slice(10, 100), repeated(5), repeated(99), ...many.slice(100)]);
      assert.deepEqual(await events.read({ instance: a, limit: 1000 }), many);
    }));

    it('purge deletes what was received before the cut-off, in every instance, and answers how many', () => withStorage(harness, async ({ events }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      const old = [entry(a, T), entry(b, T + 1), entry(a, T + 999)];
      const kept = [entry(b, T + 1000), entry(a, T + 2000)];
      await events.append([...old, ...kept]);
      assert.equal(await events.purge(T + 1000), 3);
      assert.equal(await events.purge(T + 1000), 0);
      assert.deepEqual(await events.read({ limit: 10 }), kept);
      assert.deepEqual(await events.read({ instance: a, limit: 10 }), [kept[1]]);
      assert.deepEqual(await events.read({ instance: b, limit: 10 }), [kept[0]]);
      // A purged id may be appended again (a replayed batch after the cut-off moved past it).
      await events.append([old[0]!]);
      assert.deepEqual(await events.read({ instance: a, limit: 10 }), [old[0], kept[1]]);
    }));

    it('purges logs larger than one batch', () => withStorage(harness, async ({ events }) => {
      const a = uniqueId('ins');
      const many = Array.from({ length: 2500 }, (_, i) => entry(a, T + i));
      await events.append(many);
      assert.equal(await events.purge(T + 2400), 2400);
      assert.deepEqual(await events.read({ instance: a, limit: 1000 }), many.slice(2400));
    }));

    it('clear deletes one instance\'s entries only', () => withStorage(harness, async ({ events }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      const [a1, b1, a2] = [entry(a, T), entry(b, T + 1), entry(a, T + 2)];
      await events.append([a1!, b1!, a2!]);
      await events.clear(a);
      await events.clear(uniqueId('ins'));
      assert.deepEqual(await events.read({ limit: 10 }), [b1]);
      assert.deepEqual(await events.read({ instance: a, limit: 10 }), []);
    }));

    it('deliveries.enqueue logs its events in the same write: with the deliveries, alone, a repeated id once', () => withStorage(harness, async ({ deliveries, events }) => {
      const a = uniqueId('ins');
      const [first, second, third] = [entry(a, T), entry(a, T + 1, 'message.status'), entry(a, T + 2)];
      const delivery = newDelivery(a, 'http://127.0.0.1:9001/hook', T, `dlv_${first!.id}`);
      await deliveries.enqueue([delivery], [first!, second!]);
      assert.deepEqual(await events.read({ instance: a, limit: 10 }), [first, second]);
      assert.equal((await deliveries.stats(a)).totalPending, 1);
      // An event routed nowhere is logged all the same; a repeated entry and a repeated delivery change nothing.
      await deliveries.enqueue([], [third!]);
      await deliveries.enqueue([delivery], [{ ...first!, event: '{"changed":true}' }]);
      assert.deepEqual(await events.read({ instance: a, limit: 10 }), [first, second, third]);
      assert.equal((await deliveries.stats(a)).totalPending, 1);
      assert.deepEqual((await deliveries.claim({ now: T, limit: 10, leaseMs: 1000 })).map((d) => d.id), [delivery.id]);
    }));

    if (harness.reopen) {
      const reopen = harness.reopen.bind(harness);
      it('keeps entries across close and reopen, those logged by deliveries.enqueue too', async () => {
        let storage = await harness.create(new FakeClock());
        await storage.init();
        try {
          const a = uniqueId('ins');
          const logged = [entry(a, T), entry(a, T + 1), entry(a, T + 2)];
          await storage.events.append(logged.slice(0, 2));
          await storage.deliveries.enqueue([newDelivery(a, 'http://127.0.0.1:9001/hook', T + 2)], logged.slice(2));
          storage = await reopenStorage({ reopen }, storage);
          assert.deepEqual(await storage.events.read({ instance: a, limit: 10 }), logged);
          assert.equal((await storage.deliveries.stats(a)).totalPending, 1);
        } finally {
          await storage.close();
        }
      });
    }
  });
}
