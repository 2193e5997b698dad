import { describeError } from '../util/describe-error.js';
import type { StorageHealth } from './storage.js';

/**
 * Readiness from one round trip to the store: ready when `roundTrip` completes, otherwise not ready
 * with the failure as {@link describeError} tells it (URL credentials redacted). It never throws.
 */
export async function probeStorageHealth(roundTrip: () => unknown): Promise<StorageHealth> {
  try {
    await roundTrip();
    return { ready: true };
  } catch (err) {
    return { ready: false, detail: describeError(err) };
  }
}
