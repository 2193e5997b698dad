import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { withinTime } from '../src/index.js';

describe('withinTime', () => {
  it('rejects with the message when the promise has not settled within the bound; settles as it otherwise', async () => {
    await assert.rejects(withinTime(new Promise(() => undefined), 20, 'too slow'), /too slow/);
    assert.equal(await withinTime(sleep(5).then(() => 'answer'), 1_000, 'too slow'), 'answer');
    await assert.rejects(withinTime(Promise.reject(new Error('refused')), 1_000, 'too slow'), /refused/);
  });

  it('takes Infinity for no bound (setTimeout alone would fire after 1 ms)', async () => {
    assert.equal(await withinTime(sleep(30).then(() => 'late answer'), Infinity, 'too slow'), 'late answer');
  });
});
