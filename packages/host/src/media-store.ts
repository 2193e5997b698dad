import type { MediaStore, RecordStore } from '@parley/core';

/**
 * A record store (or a whole storage) with its `media` replaced by `store`: everything else is the
 * back end's own (methods run on the back end itself); `init` and `close` also start and stop the store.
 */
export function withMediaStore<S extends RecordStore>(storage: S, store: MediaStore): S {
  return new Proxy(storage, {
    get(target, property) {
      if (property === 'media') return store;
      if (property === 'init') return async () => {
        await target.init();
        await store.init?.();
      };
      if (property === 'close') return async () => {
        await store.close?.();
        await target.close();
      };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
