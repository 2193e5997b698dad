import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OUTBOX_KEYS, RECORD_STORE_KEYS, type Outbox, type RecordStore, type StorageHealth } from '@parley/core';
import { composeStorage } from '../src/compose-storage.js';
import { withMediaStore } from '../src/media-store.js';

/** A store whose repositories are tagged objects and whose lifecycle calls are recorded in `log`. */
function recordingStore<S extends RecordStore | Outbox>(name: string, keys: readonly string[], log: string[], options: { health?: StorageHealth; batching?: boolean } = {}): S & { discard(): void; commit(): void } {
  const listeners: (() => void)[] = [];
  let pending: (() => void)[] = [];
  const store: Record<string, unknown> = {
    name,
    location: `/data/${name}`,
    init: async () => void log.push(`${name}.init`),
    health: async () => options.health ?? { ready: true },
    flush: () => {
      log.push(`${name}.flush`);
      return options.batching ? new Promise<void>((resolve) => pending.push(resolve)) : Promise.resolve();
    },
    close: async () => void log.push(`${name}.close`),
    discard: () => listeners.forEach((listener) => listener()),
    commit: () => {
      for (const resolve of pending) resolve();
      pending = [];
    },
    ...(options.batching ? { onDiscard: (listener: () => void) => listeners.push(listener) } : {}),
  };
  for (const key of keys) store[key] = { of: name, key };
  return store as unknown as S & { discard(): void; commit(): void };
}

describe('composeStorage', () => {
  it('answers the very back end when one object provides both halves', () => {
    const log: string[] = [];
    const both = recordingStore<RecordStore & Outbox>('both', [...RECORD_STORE_KEYS, ...OUTBOX_KEYS], log);
    assert.equal(composeStorage(both, both), both);
  });

  it('takes each repository from its half and names both', () => {
    const log: string[] = [];
    const storage = composeStorage(recordingStore<RecordStore>('mem', RECORD_STORE_KEYS, log), recordingStore<Outbox>('lite', OUTBOX_KEYS, log));
    for (const key of RECORD_STORE_KEYS) assert.deepEqual(storage[key], { of: 'mem', key });
    for (const key of OUTBOX_KEYS) assert.deepEqual(storage[key], { of: 'lite', key });
    assert.equal(storage.name, 'mem+lite');
    assert.equal(storage.location, '/data/mem + /data/lite');
    assert.equal(storage.cluster, undefined, 'two halves never coordinate a cluster');
  });

  it('starts the record store first, closes it last, and flush waits for both', async () => {
    const log: string[] = [];
    const outbox = recordingStore<Outbox>('lite', OUTBOX_KEYS, log, { batching: true });
    const storage = composeStorage(recordingStore<RecordStore>('mem', RECORD_STORE_KEYS, log), outbox);
    await storage.init();
    let flushed = false;
    const flushing = storage.flush().then(() => (flushed = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(flushed, false, 'the outbox has not committed yet');
    outbox.commit();
    await flushing;
    await storage.close();
    assert.deepEqual(log, ['mem.init', 'lite.init', 'mem.flush', 'lite.flush', 'lite.close', 'mem.close']);
  });

  it('tells onDiscard listeners of either half', () => {
    const log: string[] = [];
    const records = recordingStore<RecordStore>('mem', RECORD_STORE_KEYS, log, { batching: true });
    const outbox = recordingStore<Outbox>('lite', OUTBOX_KEYS, log, { batching: true });
    const storage = composeStorage(records, outbox);
    let told = 0;
    storage.onDiscard!(() => told++);
    records.discard();
    outbox.discard();
    assert.equal(told, 2);
  });

  it('is ready when both halves are, and names each that is not', async () => {
    const log: string[] = [];
    const ready = { ready: true };
    const down = { ready: false, detail: 'SQLITE_CANTOPEN' };
    const healthOf = (records: StorageHealth, outbox: StorageHealth) => composeStorage(
      recordingStore<RecordStore>('mem', RECORD_STORE_KEYS, log, { health: records }), recordingStore<Outbox>('lite', OUTBOX_KEYS, log, { health: outbox }),
    ).health();
    assert.deepEqual(await healthOf(ready, ready), { ready: true });
    assert.deepEqual(await healthOf(ready, down), { ready: false, detail: 'outbox lite: SQLITE_CANTOPEN' });
    assert.deepEqual(await healthOf({ ready: false }, down), { ready: false, detail: 'record store mem: not ready; outbox lite: SQLITE_CANTOPEN' });
  });

  it('a media store replaces the composed record store\'s media, started and stopped with it', async () => {
    const log: string[] = [];
    const media = {
      name: 's3', put: async () => undefined, get: async () => null, delete: async () => undefined, clear: async () => undefined,
      init: async () => void log.push('s3.init'), close: async () => void log.push('s3.close'),
    };
    const storage = withMediaStore(composeStorage(recordingStore<RecordStore>('mem', RECORD_STORE_KEYS, log), recordingStore<Outbox>('lite', OUTBOX_KEYS, log)), media as never);
    assert.equal(storage.media, media);
    assert.deepEqual(storage.deliveries, { of: 'lite', key: 'deliveries' });
    await storage.init();
    await storage.close();
    assert.deepEqual(log, ['mem.init', 'lite.init', 's3.init', 's3.close', 'lite.close', 'mem.close']);
  });
});
