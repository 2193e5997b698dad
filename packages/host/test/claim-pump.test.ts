import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClaimPump, claimRetryMs, CLAIM_RETRY_MAX_MS } from '../src/claim-pump.js';

describe('ClaimPump after failed rounds', () => {
  it('waits 1 s after the first failure in a row, doubling up to 30 s', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 100, 10_000].map(claimRetryMs), [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000]);
    assert.equal(CLAIM_RETRY_MAX_MS, 30_000);
  });

  it('tells the first failure of a run at once, folds the next ones into the next line, and tells the recovery once', async () => {
    const told: unknown[] = [];
    let fail = true;
    let rounds = 0;
    let settle!: () => void;
    let settled = new Promise<void>((resolve) => (settle = resolve));
    const pump = new ClaimPump(async () => {
      rounds++;
      queueMicrotask(() => setImmediate(settle));
      if (fail) throw new Error('SQLITE_FULL');
      return false;
    }, {
      failed: (error, run) => told.push({ failed: (error as Error).message, ...run }),
      recovered: (run) => told.push({ recovered: run.failures }),
    });
    const round = async () => {
      await settled;
      settled = new Promise<void>((resolve) => (settle = resolve));
    };
    pump.start();
    await round();
    // Wake-ups (an enqueue) run a round before the armed retry: they fail too, and are counted, not told.
    pump.wake();
    await round();
    pump.wake();
    await round();
    assert.deepEqual(told, [{ failed: 'SQLITE_FULL', failures: 1, rounds: 1, retryInMs: 1_000 }]);
    fail = false;
    pump.wake();
    await round();
    assert.deepEqual(told.at(-1), { recovered: 3 });
    fail = true;
    pump.wake();
    await round();
    assert.deepEqual(told.at(-1), { failed: 'SQLITE_FULL', failures: 1, rounds: 1, retryInMs: 1_000 }, 'a new run is told at once');
    assert.equal(rounds, 5);
    await pump.stop();
  });
});
