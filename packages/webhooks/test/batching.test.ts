import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Delivery, LoggedEvent, NewDelivery, Storage } from '@parley/core';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { backends, createInstance, engineFor, eventually, gate, textEvent } from './support/harness.js';

/** Records the queue calls the engine makes, passing them through to the real storage. */
function spyOn(storage: Storage) {
  const enqueues: NewDelivery[][] = [];
  const logged: LoggedEvent[][] = [];
  const claims: Delivery[][] = [];
  const instanceReads: string[] = [];
  const { deliveries, instances } = storage;
  const enqueue = deliveries.enqueue.bind(deliveries);
  const enqueueInBatch = deliveries.enqueueInBatch?.bind(deliveries);
  const claim = deliveries.claim.bind(deliveries);
  const get = instances.get.bind(instances);
  let failEnqueue: Error | null = null;
  const seen = (batch: NewDelivery[], events: LoggedEvent[]): void => {
    enqueues.push(batch);
    logged.push(events);
    if (failEnqueue) throw failEnqueue;
  };
  deliveries.enqueue = async (batch, events = []) => {
    seen(batch, events);
    return enqueue(batch, events);
  };
  // The engine writes through it where the back end has it (SQLite): the same calls.
  if (enqueueInBatch) {
    deliveries.enqueueInBatch = async (batch, events = []) => {
      seen(batch, events);
      return enqueueInBatch(batch, events);
    };
  }
  deliveries.claim = async (options) => {
    const claimed = await claim(options);
    claims.push(claimed);
    return claimed;
  };
  instances.get = async (id) => {
    instanceReads.push(id);
    return get(id);
  };
  return {
    enqueues, logged, claims, instanceReads,
    failNextEnqueues(error: Error | null) {
      failEnqueue = error;
    },
  };
}

for (const backend of backends()) {
  describe(`engine batching (${backend.name} storage)`, () => {
    let storage: Storage;
    let receiver: HttpReceiver;
    let spy: ReturnType<typeof spyOn>;

    before(async () => {
      storage = await backend.open();
      spy = spyOn(storage);
      receiver = await startHttpReceiver();
    });
    after(async () => {
      await receiver.close();
      await storage.close();
    });

    it('events handed over in one event-loop turn are written in one enqueue call, in order, before handle resolves', async () => {
      const engine = engineFor(storage);
      const instances = await Promise.all([1, 2, 3].map((n) => createInstance(storage, { webhookMessage: `${receiver.url}/batch-${n}` })));
      const events = instances.map((instance, n) => textEvent(instance, n));
      const before = spy.enqueues.length;
      await Promise.all(events.map((event, n) => engine.handle(event, instances[n]!)));
      assert.equal(spy.enqueues.length, before + 1);
      assert.deepEqual(spy.enqueues.at(-1)!.map((d) => d.eventId), events.map((e) => e.id));
      for (const instance of instances) assert.equal((await storage.deliveries.stats(instance.id)).totalPending, 1, 'persisted when handle resolved');
      // A later turn is a new batch.
      await engine.handle(textEvent(instances[0]!, 9), instances[0]!);
      assert.equal(spy.enqueues.length, before + 2);
      for (const instance of instances) await storage.deliveries.clear(instance.id);
    });

    it('handleBatch: a run of one instance\'s events is written in one enqueue call, in event order, before it resolves', async () => {
      const engine = engineFor(storage);
      const instance = await createInstance(storage, { webhookMessage: `${receiver.url}/run` });
      const events = [0, 1, 2, 3].map((n) => textEvent(instance, n));
      const before = spy.enqueues.length;
      await engine.handleBatch(events, instance);
      assert.equal(spy.enqueues.length, before + 1);
      assert.deepEqual(spy.enqueues.at(-1)!.map((d) => d.eventId), events.map((e) => e.id));
      assert.equal((await storage.deliveries.stats(instance.id)).totalPending, 4);
      await storage.deliveries.clear(instance.id);
    });

    it('logEvents: events are logged in the enqueue call of their deliveries, those routed nowhere too; written() waits for it', async () => {
      const engine = engineFor(storage, {}, { logEvents: true });
      const [routed, silent] = await Promise.all([createInstance(storage, { webhookMessage: `${receiver.url}/logged` }), createInstance(storage, { allowWebhook: false })]);
      const events = [textEvent(routed, 1), textEvent(silent, 2)];
      const before = spy.enqueues.length;
      const handled = Promise.all([engine.handle(events[0]!, routed), engine.handle(events[1]!, silent)]);
      const written = engine.written();
      await handled;
      await written;
      assert.equal(spy.enqueues.length, before + 1, 'one write for both');
      assert.deepEqual(spy.enqueues.at(-1)!.map((d) => d.eventId), [events[0]!.id]);
      assert.deepEqual(spy.logged.at(-1)!.map((e) => [e.id, e.instance, e.type, e.at]), events.map((e) => [e.id, e.instance, e.type, e.receivedAt]));
      for (const [n, instance] of [routed, silent].entries()) {
        const [entry] = await storage.events.read({ instance: instance.id, limit: 10 });
        assert.deepEqual(JSON.parse(entry!.event), JSON.parse(JSON.stringify(events[n])));
      }
      await storage.deliveries.clear(routed.id);
    });

    it('logEvents: a failed write rejects every handle of it, an event routed nowhere too, and logs none of their events', async () => {
      const engine = engineFor(storage, {}, { logEvents: true });
      const [instance, silent] = await Promise.all([
        createInstance(storage, { webhookMessage: `${receiver.url}/unlogged` }), createInstance(storage, { allowWebhook: false }),
      ]);
      spy.failNextEnqueues(new Error('disk full'));
      const handled = engine.handle(textEvent(instance, 1), instance);
      const nowhere = textEvent(silent, 2);
      // Routed nowhere: its entry goes with the (failing) write, and its handle fails with it for the bus to retry.
      await assert.rejects(engine.handle(nowhere, silent), /disk full/);
      await assert.rejects(handled, /disk full/);
      await engine.written();
      spy.failNextEnqueues(null);
      assert.deepEqual(await storage.events.read({ instance: instance.id, limit: 10 }), [], 'not logged without its deliveries');
      assert.equal((await storage.deliveries.stats(instance.id)).totalPending, 0);
      assert.deepEqual(await storage.events.read({ instance: silent.id, limit: 10 }), [], 'not retried behind the bus\'s back');
      await engine.handle(nowhere, silent);
      assert.deepEqual((await storage.events.read({ instance: silent.id, limit: 10 })).map((e) => e.id), [nowhere.id], 'logged when handled again');
    });

    it('an event handled again once its deliveries are queued is not queued again: a webhook sent and removed meanwhile is not sent twice', async () => {
      const engine = engineFor(storage);
      const instance = await createInstance(storage, { webhookMessage: `${receiver.url}/again` });
      const event = textEvent(instance, 1);
      await engine.handle(event, instance);
      // Queued means durable: the bus awaits the storage's flush before an event is over.
      await storage.flush();
      assert.equal((await storage.deliveries.stats(instance.id)).totalPending, 1);
      // As the worker leaves it once the webhook is sent: removed.
      await storage.deliveries.clear(instance.id);
      const enqueues = spy.enqueues.length;
      await engine.handle(event, instance);
      assert.equal(spy.enqueues.length, enqueues, 'no second write');
      assert.equal((await storage.deliveries.stats(instance.id)).totalPending, 0, 'nothing to send again');
    });

    it('a failed batch write rejects every handle of the batch, and nothing is queued', async () => {
      const engine = engineFor(storage);
      const instances = await Promise.all([1, 2].map((n) => createInstance(storage, { webhookMessage: `${receiver.url}/fail-${n}` })));
      spy.failNextEnqueues(new Error('disk full'));
      const results = await Promise.allSettled(instances.map((instance, n) => engine.handle(textEvent(instance, n), instance)));
      spy.failNextEnqueues(null);
      assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
      for (const r of results) assert.equal((r as PromiseRejectedResult).reason.message, 'disk full');
      for (const instance of instances) assert.equal((await storage.deliveries.stats(instance.id)).totalPending, 0);
    });

    it('a burst is claimed in shared rounds and each instance is read once per second, not per attempt', async () => {
      const engine = engineFor(storage);
      const instances = await Promise.all([1, 2, 3, 4].map((n) => createInstance(storage, { webhookMessage: `${receiver.url}/burst-${n}` })));
      const perLane = 10;
      const claimsBefore = spy.claims.length;
      const readsBefore = spy.instanceReads.length;
      await Promise.all(instances.map(async (instance) => {
        for (let n = 0; n < perLane; n++) await engine.handle(textEvent(instance, n), instance);
      }));
      engine.start();
      await eventually(async () => {
        const stats = await Promise.all(instances.map((i) => storage.deliveries.stats(i.id)));
        return stats.reduce((sum, s) => sum + s.totalSent, 0);
      }, (sent) => sent === instances.length * perLane);
      await engine.stop();
      const claims = spy.claims.slice(claimsBefore).filter((c) => c.length > 0);
      // Every delivery was claimed (a batch's tail that the lease had no room for is released and claimed again) and POSTed once.
      assert.equal(new Set(claims.flat().map((d) => d.id)).size, instances.length * perLane);
      const posted = receiver.requests.filter((r) => r.url.startsWith('/burst-')).map((r) => r.headers['webhook-id']);
      assert.equal(posted.length, instances.length * perLane);
      assert.equal(new Set(posted).size, posted.length);
      // Four lanes are ready together at the start: the first round takes all of them, each with its batch.
      assert.deepEqual(new Set(claims[0]!.map((d) => d.instance)), new Set(instances.map((i) => i.id)));
      const reads = spy.instanceReads.slice(readsBefore);
      assert.ok(reads.length < instances.length * perLane, `${reads.length} instance reads for ${instances.length * perLane} attempts`);
      assert.deepEqual([...new Set(reads)].sort(), instances.map((i) => i.id).sort());
    });

    it('a retry falling due while another lane\'s attempt hangs is sent without waiting for that attempt', async () => {
      // The hanging attempt would time out after 5 s; the worker must not wait for it to send the retry.
      const engine = engineFor(storage, { timeoutMs: 5_000, leaseMs: 12_000, retry: { schedule: [50] } });
      const slow = await startHttpReceiver();
      const retried = gate();
      let attempts = 0;
      receiver.respond((request) => (request.url === '/retry' && ++attempts === 1 ? { status: 500 } : {}));
      slow.respond(async () => {
        await retried.wait;
        return {};
      });
      const [hanging, failing] = await Promise.all([
        createInstance(storage, { webhookMessage: `${slow.url}/hang` }),
        createInstance(storage, { webhookMessage: `${receiver.url}/retry` }),
      ]);
      engine.start();
      try {
        await engine.handle(textEvent(hanging, 1), hanging);
        await slow.waitFor(1);
        await engine.handle(textEvent(failing, 2), failing);
        await eventually(async () => attempts, (n) => n === 2);
        retried.open();
        await eventually(() => storage.deliveries.stats(hanging.id), (s) => s.totalSent === 1);
      } finally {
        retried.open();
        await engine.stop();
        await slow.close();
      }
      assert.deepEqual(await storage.deliveries.stats(hanging.id).then(({ totalSent, totalFailed }) => ({ totalSent, totalFailed })), { totalSent: 1, totalFailed: 0 });
      assert.deepEqual(await storage.deliveries.stats(failing.id).then(({ totalSent, totalFailed }) => ({ totalSent, totalFailed })), { totalSent: 1, totalFailed: 1 });
    });
  });
}
