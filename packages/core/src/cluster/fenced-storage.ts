import type { Storage } from '../storage/storage.js';

/**
 * The property under which a storage view built on another storage (the host's fenced view of an
 * instance's storage) answers the storage it was built on: see {@link unfencedStorage}.
 */
export const UNFENCED = Symbol.for('parley.core.unfencedStorage');

/**
 * The storage under a fenced view (itself for any other storage). A driver keeping state shared by
 * all its instances (the sandbox network's number book and inboxes) must build it on this, not on
 * the first instance's fenced view: that instance's lease would fence everybody's writes.
 */
export function unfencedStorage(storage: Storage): Storage {
  return (storage as Storage & { [UNFENCED]?: Storage })[UNFENCED] ?? storage;
}
