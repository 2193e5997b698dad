import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { Storage } from '@parley/core';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { deliveryId, type WebhookEngine, type WebhookOptionsInput } from '../src/index.js';
import { assertStandardSignature, backends, createInstance, engineFor, eventually, gate, textEvent } from './support/harness.js';

const counters = async (engine: WebhookEngine, id: string) => {
  const { totalSent, totalFailed, totalPending } = await engine.stats(id);
  return { totalSent, totalFailed, totalPending };
};

for (const backend of backends()) {
  describe(`webhook delivery (${backend.name} storage, real receiver)`, () => {
    // One engine at a time works on this storage, so no other engine's schedule interferes.
    let storage: Storage;
    let engine: WebhookEngine;
    const receivers: HttpReceiver[] = [];

    before(async () => {
      storage = await backend.open();
    });

    beforeEach(() => {
      engine = engineFor(storage);
      engine.start();
    });

    afterEach(async () => {
      await engine.stop();
    });

    after(async () => {
      await Promise.all(receivers.map((r) => r.close()));
      await storage.close();
    });

    /** Replaces this test's engine by one with other options, started. */
    const use = async (options: WebhookOptionsInput) => {
      await engine.stop();
      engine = engineFor(storage, options);
      engine.start();
    };

    const receiver = async () => {
      const r = await startHttpReceiver();
      receivers.push(r);
      return r;
    };

    it('receiver down then up: every event arrives, in order, duplicates only with the same webhook-id', async () => {
      const r = await receiver();
      const url = `${r.url}/hook`;
      const instance = await createInstance(storage, { webhookMessage: url });
      await r.down();
      // A schedule long enough (12.7 s) that the head cannot be dead-lettered while the receiver is down.
      await use({ retry: { schedule: [20, 50, 100, 200, 400, 800, 1_600, 3_200, 6_400] } });
      const events = Array.from({ length: 8 }, (_, i) => textEvent(instance, i));
      for (const event of events) await engine.handle(event, instance);
      await eventually(() => engine.stats(instance.id), (s) => s.totalFailed >= 2);
      await r.up();
      await eventually(() => engine.stats(instance.id), (s) => s.totalPending === 0, 15_000);
      const ids = r.requests.map((request) => String(request.headers['webhook-id']));
      const expected = events.map((event) => deliveryId(event.id, 'native', url));
      assert.deepEqual([...new Set(ids)], expected, 'first arrivals out of order or missing');
      assert.deepEqual(r.requests.map((request) => (request.json as { id: string }).id).filter((id, i, all) => all.indexOf(id) === i), events.map((e) => e.id));
      for (const request of r.requests) assertStandardSignature(request, instance.webhookSecret);
      const stats = await counters(engine, instance.id);
      assert.equal(stats.totalSent, 8);
      assert.equal(stats.totalPending, 0);
      // Refused connections are failures the receiver never saw.
      assert.ok(stats.totalFailed >= 2);
    });

    it('500 answers are retried per schedule; statistics equal what the receiver saw', async () => {
      const r = await receiver();
      r.respond((request) => ({ status: request.index < 2 ? 500 : 200, delayMs: 30 }));
      const instance = await createInstance(storage, { webhookMessage: `${r.url}/hook` });
      await engine.handle(textEvent(instance, 1), instance);
      const requests = await r.waitFor(3);
      await eventually(() => engine.stats(instance.id), (s) => s.totalPending === 0);
      const stats = await engine.stats(instance.id);
      assert.deepEqual({ ...stats, avgResponseTime: 0 }, { totalSent: 1, totalFailed: 2, totalPending: 0, avgResponseTime: 0 });
      // Every answer took at least the receiver's 30 ms delay.
      assert.ok(stats.avgResponseTime >= 30, `avgResponseTime ${stats.avgResponseTime}`);
      assert.equal(new Set(requests.map((q) => q.headers['webhook-id'])).size, 1);
      assert.equal(new Set(requests.map((q) => q.body)).size, 1);
      // Schedule [20, 40, …] ms after each answer (30 ms each).
      assert.ok(requests[1]!.time - requests[0]!.time >= 50);
      assert.ok(requests[2]!.time - requests[1]!.time >= 70);
      for (const request of requests) assertStandardSignature(request, instance.webhookSecret);
      assert.equal(r.requests.length, 3);
    });

    it('429 with Retry-After postpones the retry by the receiver\'s delay', async () => {
      const r = await receiver();
      r.respond((request) => (request.index === 0 ? { status: 429, retryAfter: 1 } : {}));
      const instance = await createInstance(storage, { webhookMessage: `${r.url}/hook` });
      await engine.handle(textEvent(instance, 1), instance);
      const requests = await r.waitFor(2);
      assert.ok(requests[1]!.time - requests[0]!.time >= 1_000, `retried after ${requests[1]!.time - requests[0]!.time} ms`);
      await eventually(() => counters(engine, instance.id), (s) => s.totalPending === 0);
      assert.deepEqual(await counters(engine, instance.id), { totalSent: 1, totalFailed: 1, totalPending: 0 });
    });

    it('a time-out and a dropped connection are failed attempts, retried', async () => {
      const r = await receiver();
      // Attempt 1 outlives the 500 ms time-out, attempt 2 loses its connection, attempt 3 succeeds.
      r.respond((request) => (request.index === 0 ? { delayMs: 1_500 } : request.index === 1 ? { destroy: true } : {}));
      const instance = await createInstance(storage, { webhookMessage: `${r.url}/hook` });
      await engine.handle(textEvent(instance, 1), instance);
      await r.waitFor(3);
      await eventually(() => counters(engine, instance.id), (s) => s.totalPending === 0);
      assert.deepEqual(await counters(engine, instance.id), { totalSent: 1, totalFailed: 2, totalPending: 0 });
      assert.equal(r.requests.length, 3);
      assert.equal(new Set(r.requests.map((q) => q.headers['webhook-id'])).size, 1);
    });

    it('dead-letters after the last attempt; redeliver sends it again with the same webhook-id', async () => {
      const r = await receiver();
      r.respond({ status: 503 });
      const url = `${r.url}/hook`;
      const instance = await createInstance(storage, { webhookMessage: url });
      const event = textEvent(instance, 1);
      await engine.handle(event, instance);
      const letters = await eventually(() => engine.deadLetters(instance.id, { limit: 10, offset: 0 }), (page) => page.total === 1);
      assert.equal(r.requests.length, 6, 'one attempt plus five retries');
      const [letter] = letters.items;
      assert.deepEqual(
        { id: letter!.id, eventId: letter!.eventId, url: letter!.url, format: letter!.format, attempts: letter!.attempts, lastStatus: letter!.lastStatus, lastError: letter!.lastError, body: letter!.body },
        { id: deliveryId(event.id, 'native', url), eventId: event.id, url, format: 'native', attempts: 6, lastStatus: 503, lastError: 'HTTP 503', body: r.requests[0]!.body },
      );
      assert.deepEqual(await counters(engine, instance.id), { totalSent: 0, totalFailed: 6, totalPending: 0 });

      r.respond({});
      assert.equal(await engine.redeliver(instance.id), 1);
      await r.waitFor(7);
      await eventually(() => counters(engine, instance.id), (s) => s.totalSent === 1);
      assert.deepEqual(await counters(engine, instance.id), { totalSent: 1, totalFailed: 6, totalPending: 0 });
      assert.equal(r.requests[6]!.headers['webhook-id'], letter!.id);
      assert.deepEqual(await engine.deadLetters(instance.id, { limit: 10, offset: 0 }), { items: [], total: 0 });
    });

    it('a slow receiver on one instance does not delay another instance', async () => {
      const slow = await receiver();
      const fast = await receiver();
      const held = gate();
      slow.respond(async () => {
        await held.wait;
        return {};
      });
      const a = await createInstance(storage, { webhookMessage: `${slow.url}/hook` });
      const b = await createInstance(storage, { webhookMessage: `${fast.url}/hook` });
      // A time-out far above the test's length: the slow receiver is only slow, never timed out.
      await use({ timeoutMs: 60_000, leaseMs: 120_000 });
      try {
        await engine.handle(textEvent(a, 1), a);
        await engine.handle(textEvent(a, 2), a);
        await slow.waitFor(1);
        for (let i = 0; i < 5; i++) await engine.handle(textEvent(b, i), b);
        await fast.waitFor(5);
        await eventually(() => counters(engine, b.id), (s) => s.totalSent === 5);
        // The slow lane still holds its first delivery; its second waits behind it.
        assert.equal(slow.requests.length, 1);
        assert.deepEqual(await counters(engine, a.id), { totalSent: 0, totalFailed: 0, totalPending: 2 });
      } finally {
        held.open();
      }
      await eventually(() => counters(engine, a.id), (s) => s.totalSent === 2);
    });
  });
}
