import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { probeStorageHealth } from '../src/index.js';

describe('probeStorageHealth', () => {
  it('is ready when the round trip completes, synchronously or not', async () => {
    assert.deepEqual(await probeStorageHealth(() => 1), { ready: true });
    assert.deepEqual(await probeStorageHealth(async () => 'PONG'), { ready: true });
  });

  it('is not ready with the redacted failure when the round trip throws or rejects', async () => {
    assert.deepEqual(await probeStorageHealth(() => {
      throw new Error('database is locked');
    }), { ready: false, detail: 'database is locked' });
    assert.deepEqual(await probeStorageHealth(async () => {
      throw new Error('cannot reach redis://parley:s3cret@cache:6379');
    }), { ready: false, detail: 'cannot reach redis://***@cache:6379' });
  });
});
