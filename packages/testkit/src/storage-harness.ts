import type { Clock, Storage } from '@parley/core';
import { FakeClock } from './fake-clock.js';

/**
 * How a storage back end plugs into {@link describeStorageConformance}. Differences between back ends
 * are declared here, as data; the suite never inspects the storage's class.
 */
export interface StorageHarness {
  /**
   * A new storage over empty data, isolated from every other storage this harness created (its own
   * file, key prefix or database): the delivery queue and the instance list are global, so the suite
   * asserts them exactly. The suite calls `init` and `close`. The storage must take every time it
   * makes (dead letters, redeliveries, retention cut-offs) from `clock`, as the server's plugin
   * `register` context gives it; the suite passes a fake one and asserts exact times.
   */
  create(clock: Clock): Promise<Storage>;
  /**
   * A new storage over the data of `previous`, which the suite has already closed. Durable back ends
   * provide it; the persistence tests run only when it is present.
   */
  reopen?(previous: Storage): Promise<Storage>;
  /** Runs once after the suite (temporary directories, test databases). */
  cleanup?(): Promise<void>;
}

/** Creates and initializes a storage on a new fake clock, runs `body`, and closes the storage whatever happens. */
export async function withStorage<T>(harness: StorageHarness, body: (storage: Storage, clock: FakeClock) => Promise<T>): Promise<T> {
  const clock = new FakeClock();
  const storage = await harness.create(clock);
  await storage.init();
  try {
    return await body(storage, clock);
  } finally {
    await storage.close();
  }
}

/** Closes `storage`, reopens its data with the harness and initializes the new storage. */
export async function reopenStorage(harness: Required<Pick<StorageHarness, 'reopen'>>, storage: Storage): Promise<Storage> {
  await storage.close();
  const reopened = await harness.reopen(storage);
  await reopened.init();
  return reopened;
}
