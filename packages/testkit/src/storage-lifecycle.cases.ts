import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import type { StoreLifecycle } from '@parley/core';
import type { StoreHarness } from './storage-harness.js';
import { FakeClock } from './fake-clock.js';

/** Storage lifecycle: init, health and idempotent close. */
export function describeLifecycleCases(harness: StoreHarness<StoreLifecycle>): void {
  describe('lifecycle', () => {
    it('is ready after init, not ready after close, and close is idempotent', async () => {
      const storage = await harness.create(new FakeClock());
      assert.equal(typeof storage.name, 'string');
      assert.notEqual(storage.name, '');
      assert.equal((await storage.health()).ready, false);
      await storage.init();
      assert.equal((await storage.health()).ready, true);
      await storage.close();
      assert.equal((await storage.health()).ready, false);
      await storage.close();
    });
  });
}
