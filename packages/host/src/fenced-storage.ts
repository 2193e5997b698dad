import { FencedOffError, storageView, UNFENCED, type AuthStateRepository, type Fence, type StateRepository, type Storage } from '@parley/core';

/**
 * True when a state namespace belongs to `instance`: one of its `:`- or `.`-separated segments is
 * the instance id (`<id>:sandbox`, `baileys.<id>.stories`). Writes there are the instance's channel
 * state; other namespaces (a sandbox network's shared number book, another phone's inbox) are not.
 */
export function isInstanceNamespace(namespace: string, instance: string): boolean {
  return namespace.split(/[:.]/).includes(instance);
}

/**
 * The storage a cluster node gives an instance's channel adapters: auth state writes (creds, signal
 * keys) and writes to the instance's own state namespaces carry the instance's current fencing token,
 * which the store checks atomically with the write. `fence()` answers undefined once this node lost
 * the lease; writes then fail at once with {@link FencedOffError}. Reads and every other repository
 * are the base storage's: the view is a {@link storageView} of it (every repository of the key lists,
 * the lifecycle running on `base`), and `unfencedStorage(view)` answers `base`.
 */
export function fencedStorage(base: Storage, instance: string, fence: () => Fence | undefined): Storage {
  const current = (): Fence => {
    const f = fence();
    if (!f) throw new FencedOffError(instance);
    return f;
  };
  const baseAuth = base.authState;
  const baseState = base.state;
  const authState: AuthStateRepository = {
    get: (id, category, ids) => baseAuth.get(id, category, ids),
    set: async (id, entries) => (id === instance ? baseAuth.set(id, entries, current()) : baseAuth.set(id, entries)),
    clear: async (id) => (id === instance ? baseAuth.clear(id, current()) : baseAuth.clear(id)),
  };
  const owned = (namespace: string) => isInstanceNamespace(namespace, instance);
  const state: StateRepository = {
    get: (namespace, id) => baseState.get(namespace, id),
    list: (namespace) => baseState.list(namespace),
    put: async (namespace, id, value) => (owned(namespace) ? baseState.put(namespace, id, value, current()) : baseState.put(namespace, id, value)),
    delete: async (namespace, id) => (owned(namespace) ? baseState.delete(namespace, id, current()) : baseState.delete(namespace, id)),
    clearPrefix: async (prefix) => (owned(prefix) ? baseState.clearPrefix(prefix, current()) : baseState.clearPrefix(prefix)),
  };
  const view = storageView(base, { authState, state });
  Object.defineProperty(view, UNFENCED, { value: base });
  return view;
}
