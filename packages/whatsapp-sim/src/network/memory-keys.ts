import { initAuthCreds } from '@whiskeysockets/baileys';
import type { AuthenticationState, SignalDataSet, SignalDataTypeMap, SignalKeyStore } from '@whiskeysockets/baileys';

/** A Signal key store in memory (what the simulated phones use, and what tests can give Baileys). */
export function memoryKeyStore(): SignalKeyStore {
  const data = new Map<string, unknown>();
  return {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const found: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids) {
        const value = data.get(`${type}:${id}`);
        if (value !== undefined) found[id] = value as SignalDataTypeMap[T];
      }
      return found;
    },
    async set(update: SignalDataSet) {
      for (const [type, entries] of Object.entries(update)) {
        for (const [id, value] of Object.entries(entries ?? {})) {
          if (value === null || value === undefined) data.delete(`${type}:${id}`);
          else data.set(`${type}:${id}`, value);
        }
      }
    },
  };
}

/**
 * Fresh Baileys credentials and an in-memory key store: `auth` for `makeWASocket` in tests. Baileys updates
 * `creds` in place (its `creds.update` handler assigns into it), so reusing the object reconnects as the
 * same device.
 */
export function memoryAuthState(): AuthenticationState {
  return { creds: initAuthCreds(), keys: memoryKeyStore() };
}
