import { OUTBOX_KEYS, RECORD_STORE_KEYS, repositoriesOf, STORAGE_KEYS, type StorageKey } from './storage-keys.js';
import type { Outbox, RecordStore, Storage, StoreLifecycle } from './storage.js';

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
  return { ...lifecycleOf(store), ...sharedOf(store), ...repositoriesOf(store, RECORD_STORE_KEYS) };
}

/** The optional members of a record store a server shares with others (rate limiter, signals, cluster), each running on `store`. */
function sharedOf(store: RecordStore): Pick<RecordStore, 'rateLimiter' | 'signals' | 'cluster'> {
  const shared: Pick<RecordStore, 'rateLimiter' | 'signals' | 'cluster'> = {};
  if (store.rateLimiter) shared.rateLimiter = (options) => store.rateLimiter!(options);
  if (store.signals) shared.signals = () => store.signals!();
  if (store.cluster) shared.cluster = () => store.cluster!();
  return shared;
}

/** The outbox of a back end that has more: its outbox repositories and its lifecycle, nothing of its record store (see {@link recordStoreOf}). */
export function outboxOf(store: Outbox): Outbox {
  return { ...lifecycleOf(store), ...repositoriesOf(store, OUTBOX_KEYS) };
}

/**
 * A storage that is `base` with some repositories replaced: every repository of {@link STORAGE_KEYS}
 * is `replaced`'s where given, else `base`'s own; the lifecycle and the optional rate limiter, signals
 * and cluster run on `base` itself. What a wrapper changing a few repositories builds (the fenced view
 * a cluster node gives an instance), so that it names only what it changes.
 */
export function storageView(base: Storage, replaced: Partial<Pick<Storage, StorageKey>>): Storage {
  return { ...lifecycleOf(base), ...sharedOf(base), ...repositoriesOf(base, STORAGE_KEYS, (key, repository) => replaced[key] ?? repository) };
}
