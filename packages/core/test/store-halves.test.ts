import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OUTBOX_KEYS, RECORD_STORE_KEYS, STORAGE_KEYS, outboxOf, recordStoreOf, repositoriesOf, type Storage } from '../src/index.js';

/** A whole storage whose repositories are tagged objects and whose methods record their calls on `calls`. */
function fakeStorage(calls: string[]): Storage {
  const storage: Record<string, unknown> = { name: 'fake', location: '/data/fake' };
  for (const key of STORAGE_KEYS) storage[key] = { key };
  for (const method of ['init', 'health', 'flush', 'close', 'onDiscard', 'rateLimiter', 'signals', 'cluster']) {
    storage[method] = function (this: unknown) {
      calls.push(`${method}:${this === storage ? 'on the back end' : 'elsewhere'}`);
    };
  }
  return storage as unknown as Storage;
}

describe('storage key lists', () => {
  it('name each repository of a half once, and the whole as the two halves', () => {
    assert.deepEqual(RECORD_STORE_KEYS, ['instances', 'messages', 'chats', 'contacts', 'media', 'authState', 'state']);
    assert.deepEqual(OUTBOX_KEYS, ['deliveries', 'outbound', 'events', 'idempotency']);
    assert.deepEqual(STORAGE_KEYS, [...RECORD_STORE_KEYS, ...OUTBOX_KEYS]);
  });

  it('repositoriesOf takes each repository from the source, or what member makes of it', () => {
    const storage = fakeStorage([]);
    const built = repositoriesOf(storage, OUTBOX_KEYS, (key, repository) => (key === 'events' ? ({ wrapped: repository } as never) : repository));
    assert.deepEqual(Object.keys(built), [...OUTBOX_KEYS]);
    assert.equal(built.deliveries, storage.deliveries);
    assert.deepEqual(built.events, { wrapped: storage.events });
  });
});

describe('recordStoreOf and outboxOf', () => {
  it('carry their half and the lifecycle, run on the back end, and nothing of the other half', async () => {
    const calls: string[] = [];
    const storage = fakeStorage(calls);
    const records = recordStoreOf(storage);
    const outbox = outboxOf(storage);
    assert.deepEqual(Object.keys(records).filter((k) => STORAGE_KEYS.includes(k as never)), [...RECORD_STORE_KEYS]);
    assert.deepEqual(Object.keys(outbox).filter((k) => STORAGE_KEYS.includes(k as never)), [...OUTBOX_KEYS]);
    for (const key of RECORD_STORE_KEYS) assert.equal(records[key], storage[key]);
    for (const key of OUTBOX_KEYS) assert.equal(outbox[key], storage[key]);
    assert.deepEqual([records.name, records.location, outbox.name, outbox.location], ['fake', '/data/fake', 'fake', '/data/fake']);
    await records.init();
    await outbox.flush();
    records.onDiscard!(() => undefined);
    records.rateLimiter!({ points: 1, durationMs: 1 } as never);
    records.signals!();
    records.cluster!();
    await outbox.close();
    assert.deepEqual(calls, ['init', 'flush', 'onDiscard', 'rateLimiter', 'signals', 'cluster', 'close'].map((m) => `${m}:on the back end`));
    assert.equal('cluster' in outbox, false, 'the outbox has no cluster coordination');
  });
});
