import { OUTBOX_KEYS, RECORD_STORE_KEYS, repositoriesOf } from './storage-keys.js';
import type { Outbox, RecordStore, StoreLifecycle } from './storage.js';

/** The lifecycle members of `store`, each running on `store` itself. */
function lifecycleOf(store: StoreLifecycle): StoreLifecycle {
  const lifecycle: StoreLifecycle = {
    name: store.name,
    ...(store.location !== undefined ? { location: store.location } : {}),
    init: () => store.init(),
    health: () => store.health(),
    flush: () => store.flush(),
    close: () => store.close(),
  };
  if (store.onDiscard) lifecycle.onDiscard = (listener) => store.onDiscard!(listener);
  return lifecycle;
}

/**
 * The record store of a back end that has more (a whole storage): its record repositories, its
 * lifecycle and its optional rate limiter, signals and cluster coordination, and nothing of its
 * outbox. What a plugin sets with `records.set` when it offers only that half of its back end.
 */
export function recordStoreOf(store: RecordStore): RecordStore {
  const records: RecordStore = { ...lifecycleOf(store), ...repositoriesOf(store, RECORD_STORE_KEYS) };
  if (store.rateLimiter) records.rateLimiter = (options) => store.rateLimiter!(options);
  if (store.signals) records.signals = () => store.signals!();
  if (store.cluster) records.cluster = () => store.cluster!();
  return records;
}

/** The outbox of a back end that has more: its outbox repositories and its lifecycle, nothing of its record store (see {@link recordStoreOf}). */
export function outboxOf(store: Outbox): Outbox {
  return { ...lifecycleOf(store), ...repositoriesOf(store, OUTBOX_KEYS) };
}
