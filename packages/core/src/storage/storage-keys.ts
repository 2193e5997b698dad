import type { OutboxRepositories, RecordRepositories, Storage } from './storage.js';

/** The name of a repository of the record store. */
export type RecordStoreKey = keyof RecordRepositories;
/** The name of a repository of the outbox. */
export type OutboxKey = keyof OutboxRepositories;
/** The name of any repository of {@link Storage}. */
export type StorageKey = RecordStoreKey | OutboxKey;

/** Every key of `T`, each once: an object literal of this type names all of them and nothing else. */
type KeySet<T> = { readonly [K in keyof T]-?: true };

const keysOf = <T>(set: KeySet<T>): readonly (keyof T)[] => Object.freeze(Object.keys(set) as (keyof T)[]);

/**
 * The repositories of a `RecordStore`, in one list: wrappers derive their members from it, so
 * adding a repository to {@link RecordRepositories} means adding its key here (the compiler asks for it).
 */
export const RECORD_STORE_KEYS: readonly RecordStoreKey[] = keysOf<RecordRepositories>({
  instances: true, messages: true, chats: true, contacts: true, media: true, authState: true, state: true,
});

/** The repositories of an `Outbox`, in one list (see {@link RECORD_STORE_KEYS}). */
export const OUTBOX_KEYS: readonly OutboxKey[] = keysOf<OutboxRepositories>({
  deliveries: true, outbound: true, events: true, idempotency: true,
});

/** Every repository of {@link Storage}: the record store's, then the outbox's. */
export const STORAGE_KEYS: readonly StorageKey[] = Object.freeze([...RECORD_STORE_KEYS, ...OUTBOX_KEYS]);

/**
 * An object with one member per key of `keys`: `source`'s repository, or what `member` makes of it.
 * How a wrapper builds its repositories from a key list instead of restating them
 * (`repositoriesOf(base, STORAGE_KEYS, (key, repository) => timed(repository))`).
 */
export function repositoriesOf<S extends Partial<Storage>, K extends keyof S & StorageKey>(
  source: S, keys: readonly K[], member: <Key extends K>(key: Key, repository: S[Key]) => S[Key] = (_, repository) => repository,
): Pick<S, K> {
  const built: Partial<Pick<S, K>> = {};
  for (const key of keys) Object.defineProperty(built, key, { value: member(key, source[key]), enumerable: true });
  return built as Pick<S, K>;
}
