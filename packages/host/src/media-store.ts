import { storageView, type MediaStore, type Storage } from '@parley/core';

/**
 * A storage with its `media` replaced by `store`: a {@link storageView} of `storage` (every other
 * repository of the key lists, the optional rate limiter, signals and cluster the back end's own,
 * running on it), whose `init` and `close` also start and stop the store (started after the storage,
 * stopped before it).
 */
export function withMediaStore(storage: Storage, store: MediaStore): Storage {
  return {
    ...storageView(storage, { media: store }),
    async init() {
      await storage.init();
      await store.init?.();
    },
    async close() {
      await store.close?.();
      await storage.close();
    },
  };
}
