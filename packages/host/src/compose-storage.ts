import {
  OUTBOX_KEYS, RECORD_STORE_KEYS, repositoriesOf, type Outbox, type RecordStore, type Storage, type StorageHealth,
} from '@parley/core';

/** The readiness of two stores: ready when both are; the detail of each that is not, by name. */
async function bothHealthy(records: RecordStore, outbox: Outbox): Promise<StorageHealth> {
  const [r, o] = await Promise.all([records.health(), outbox.health()]);
  if (r.ready && o.ready) return { ready: true };
  const detail = [[records, r] as const, [outbox, o] as const]
    .filter(([, health]) => !health.ready)
    .map(([store, health]) => `${store === records ? 'record store' : 'outbox'} ${store.name}: ${health.detail ?? 'not ready'}`);
  return { ready: false, detail: detail.join('; ') };
}

/**
 * The storage of a server given its record store and its outbox. When one back end provides both
 * (the same object), it is that back end itself: nothing changes, and a batching back end's commit
 * covers record and outbox writes together. Otherwise, a storage whose repositories are each store's
 * own ({@link RECORD_STORE_KEYS} from `records`, {@link OUTBOX_KEYS} from `outbox`), whose `init` and
 * `close` run on both (the record store first up, last down), whose `flush` awaits both, whose
 * `onDiscard` listener hears either, whose health is ready only when both are, and whose signals and
 * shared rate limiter are the record store's. It has no cluster coordination: the nodes of a cluster
 * share one back end providing both halves. A write to one store and a write to the other are two
 * writes, not one: see docs/storage.md ("A record store and an outbox from two plugins").
 */
export function composeStorage(records: RecordStore, outbox: Outbox): Storage {
  if ((records as unknown) === outbox) return records as Storage;
  const location = [records.location, outbox.location].filter((l) => l !== undefined);
  const storage: Storage = {
    ...repositoriesOf(records, RECORD_STORE_KEYS),
    ...repositoriesOf(outbox, OUTBOX_KEYS),
    name: `${records.name}+${outbox.name}`,
    ...(location.length > 0 ? { location: location.join(' + ') } : {}),
    async init() {
      await records.init();
      await outbox.init();
    },
    health: () => bothHealthy(records, outbox),
    async flush() {
      await Promise.all([records.flush(), outbox.flush()]);
    },
    onDiscard(listener) {
      records.onDiscard?.(listener);
      outbox.onDiscard?.(listener);
    },
    async close() {
      try {
        await outbox.close();
      } finally {
        await records.close();
      }
    },
  };
  if (records.rateLimiter) storage.rateLimiter = (options) => records.rateLimiter!(options);
  if (records.signals) storage.signals = () => records.signals!();
  return storage;
}
