import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { Storage } from '@parley/core';
import { FastHistogram } from '../src/metrics/fast-metrics.js';
import { timedStorage } from '../src/metrics/timed-storage.js';

/** A repository with what real back ends use: `#private` state, a getter, async and sync methods, a failure. */
class Messages {
  #rows = new Map<string, string>();
  readonly #held = Promise.resolve('held');
  get size(): number {
    return this.#rows.size;
  }
  async upsert(id: string, text: string): Promise<void> {
    this.#rows.set(id, text);
  }
  async get(id: string): Promise<string | null> {
    return this.#rows.get(id) ?? null;
  }
  held(): Promise<string> {
    return this.#held;
  }
  count(): number {
    return this.#rows.size;
  }
  async broken(): Promise<never> {
    throw new Error('disk full');
  }
}

class Backend {
  #closed = false;
  readonly messages = new Messages();
  get name(): string {
    return this.#closed ? 'closed' : 'fake';
  }
  async close(): Promise<void> {
    this.#closed = true;
  }
  rateLimiter(): string {
    return `limiter of ${this.name}`;
  }
}

describe('timedStorage', () => {
  it('times every repository call by repository and method, and leaves results, errors, state and other members as they were', async () => {
    const histogram = new FastHistogram({ name: 's', help: 's', labelNames: ['repository', 'operation'], buckets: [0.001], registry: new Registry() });
    const base = new Backend();
    for (const name of ['instances', 'chats', 'contacts', 'media', 'authState', 'state', 'deliveries']) (base as unknown as Record<string, unknown>)[name] = {};
    const storage = timedStorage(base as unknown as Storage, histogram) as unknown as Backend;

    await storage.messages.upsert('a', 'hello');
    await storage.messages.upsert('b', 'bye');
    assert.equal(await storage.messages.get('a'), 'hello');
    assert.equal(storage.messages.count(), 2);
    assert.equal(storage.messages.size, 2);
    await assert.rejects(storage.messages.broken(), /disk full/);
    assert.equal(histogram.series('messages', 'upsert').count, 2);
    assert.equal(histogram.series('messages', 'get').count, 1);
    assert.equal(histogram.series('messages', 'count').count, 1);
    assert.equal(histogram.series('messages', 'broken').count, 1, 'a failed call is timed too');
    assert.ok(histogram.series('messages', 'upsert').sum >= 0);
    // The caller resumes one microtask hop after the repository's promise settles, not three (a `finally`).
    let hops = 0;
    let resumedAfter = -1;
    void storage.messages.held().then(() => (resumedAfter = hops));
    for (let i = 0; i < 5; i++) {
      await Promise.resolve();
      hops++;
    }
    assert.equal(resumedAfter, 1);
    assert.equal(histogram.series('messages', 'held').count, 1);

    assert.equal(storage.name, 'fake');
    assert.equal(storage.rateLimiter(), 'limiter of fake');
    await storage.close();
    assert.equal(base.name, 'closed', 'life-cycle calls reach the back end');
    assert.equal(storage.name, 'closed');
    assert.equal(base.messages.size, 2, 'writes went to the real repository');
  });
});
