import type { Clock, Outbox, RecordStore, Storage, StoreLifecycle } from '@parley/core';
import { FakeClock } from './fake-clock.js';

/**
 * How a store under test plugs into a conformance suite: a whole {@link Storage} back end
 * ({@link StorageHarness}), a record store alone ({@link RecordStoreHarness}) or an outbox alone
 * ({@link OutboxHarness}). Differences between back ends are declared here, as data; the suites never
 * inspect the store's class.
 */
export interface StoreHarness<S extends StoreLifecycle> {
  /**
   * A new store over empty data, isolated from every other store this harness created (its own
   * file, key prefix or database): the delivery queue and the instance list are global, so the suite
   * asserts them exactly. The suite calls `init` and `close`. The store must take every time it
   * makes (dead letters, redeliveries, retention cut-offs) from `clock`, as the server's plugin
   * `register` context gives it; the suite passes a fake one and asserts exact times.
   */
  create(clock: Clock): Promise<S>;
  /**
   * A new store over the data of `previous`, which the suite has already closed. Durable back ends
   * provide it; the persistence tests run only when it is present.
   */
  reopen?(previous: S): Promise<S>;
  /** Runs once after the suite (temporary directories, test databases). */
  cleanup?(): Promise<void>;
}

/** How a whole storage back end (record store and outbox in one) plugs into `describeStorageConformance`. */
export type StorageHarness = StoreHarness<Storage>;
/** How a record store plugs into `describeRecordStoreConformance`. */
export type RecordStoreHarness = StoreHarness<RecordStore>;
/** How an outbox plugs into `describeOutboxConformance`. */
export type OutboxHarness = StoreHarness<Outbox>;

/** Creates and initializes a store on a new fake clock, runs `body`, and closes the store whatever happens. */
export async function withStorage<S extends StoreLifecycle, T>(harness: StoreHarness<S>, body: (storage: S, clock: FakeClock) => Promise<T>): Promise<T> {
  const clock = new FakeClock();
  const storage = await harness.create(clock);
  await storage.init();
  try {
    return await body(storage, clock);
  } finally {
    await storage.close();
  }
}

/** Closes `storage`, reopens its data with the harness and initializes the new store. */
export async function reopenStorage<S extends StoreLifecycle>(harness: Required<Pick<StoreHarness<S>, 'reopen'>>, storage: S): Promise<S> {
  await storage.close();
  const reopened = await harness.reopen(storage);
  await reopened.init();
  return reopened;
}
