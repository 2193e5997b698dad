import { decodeStored, encodeStored, type AuthStateRepository } from '@parley/core';
import {
  initAuthCreds, proto, type AuthenticationCreds, type AuthenticationState, type SignalDataSet, type SignalDataTypeMap,
  type SignalKeyStore,
} from '@whiskeysockets/baileys';
import { BoundedCache } from '../util/bounded-cache.js';

const CREDS = 'creds';
const SEPARATOR = '\u0000';

/** Baileys auth state kept in the storage back end. */
export interface StorageAuthState {
  readonly state: AuthenticationState;
  /** True when creds were found in storage (a session to restore), false for a fresh pairing. */
  readonly restored: boolean;
  /** Persists the current creds (call on Baileys' `creds.update`). */
  saveCreds(): Promise<void>;
  /** Deletes creds and every signal key of the instance. */
  clear(): Promise<void>;
}

/**
 * Loads the auth state of one instance: creds under category `creds`, signal keys under their Baileys
 * key type, values encoded with `encodeStored` so Buffers round-trip. Reads go through a bounded LRU
 * (absent keys are cached too, so repeated misses cost no I/O); every write goes to storage first, in
 * order, then to the cache.
 */
export async function loadStorageAuthState(repo: AuthStateRepository, instanceId: string, cacheSize: number): Promise<StorageAuthState> {
  const stored = await repo.get(instanceId, CREDS, [CREDS]);
  const restored = typeof stored[CREDS] === 'string';
  const creds: AuthenticationCreds = restored ? decodeStored<AuthenticationCreds>(stored[CREDS]!) : initAuthCreds();
  const cache = new BoundedCache<unknown>({ max: cacheSize });
  let writes: Promise<void> = Promise.resolve();

  // Writes are chained so a later write never lands before an earlier one.
  const write = (entries: { category: string; id: string; value: string | null }[]): Promise<void> => {
    const next = writes.then(() => repo.set(instanceId, entries));
    writes = next.catch(() => undefined);
    return next;
  };

  const keys: SignalKeyStore = {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const result: { [id: string]: SignalDataTypeMap[T] } = {};
      const missing: string[] = [];
      for (const id of ids) {
        const cacheKey = `${type}${SEPARATOR}${id}`;
        if (!cache.has(cacheKey)) {
          missing.push(id);
          continue;
        }
        const value = cache.get<SignalDataTypeMap[T] | null>(cacheKey);
        if (value !== null && value !== undefined) result[id] = value;
      }
      if (missing.length > 0) {
        await writes;
        const found = await repo.get(instanceId, type, missing);
        for (const id of missing) {
          const text = found[id];
          const value = text === undefined ? null : reviveKey(type, decodeStored(text));
          cache.set(`${type}${SEPARATOR}${id}`, value);
          if (value !== null) result[id] = value as SignalDataTypeMap[T];
        }
      }
      return result;
    },
    async set(data: SignalDataSet) {
      const entries: { category: string; id: string; value: string | null }[] = [];
      for (const [category, values] of Object.entries(data)) {
        for (const [id, value] of Object.entries(values ?? {})) {
          entries.push({ category, id, value: value === null || value === undefined ? null : encodeStored(value) });
        }
      }
      if (entries.length === 0) return;
      await write(entries);
      for (const [category, values] of Object.entries(data)) {
        for (const [id, value] of Object.entries(values ?? {})) cache.set(`${category}${SEPARATOR}${id}`, value ?? null);
      }
    },
    async clear() {
      await writes;
      await repo.clear(instanceId);
      cache.flushAll();
    },
  };

  return {
    state: { creds, keys },
    restored,
    saveCreds: () => write([{ category: CREDS, id: CREDS, value: encodeStored(creds) }]),
    async clear() {
      await keys.clear!();
    },
  };
}

/** Turns a decoded value back into what Baileys expects for its key type. */
function reviveKey(type: keyof SignalDataTypeMap, value: unknown): unknown {
  if (type === 'app-state-sync-key' && value) return proto.Message.AppStateSyncKeyData.fromObject(value as Record<string, unknown>);
  return value;
}
