import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LogThrottle } from '../src/index.js';

describe('LogThrottle', () => {
  it('writes the first occurrence at once and folds the next ones into one line at the end of the period', async () => {
    const lines: [string, number][] = [];
    const throttle = new LogThrottle(200);
    for (const detail of ['a', 'b', 'c', 'd']) throttle.note((count) => lines.push([detail, count]));
    assert.deepEqual(lines, [['a', 1]]);
    await sleep(400);
    // The folded line carries the latest occurrence's details and counts the three it stands for.
    assert.deepEqual(lines, [['a', 1], ['d', 3]]);
  });

  it('writes at once again once a period passed without a line, and nothing when nothing was folded', async () => {
    const lines: number[] = [];
    const throttle = new LogThrottle(100);
    throttle.note((count) => lines.push(count));
    await sleep(250);
    assert.deepEqual(lines, [1]);
    throttle.note((count) => lines.push(count));
    assert.deepEqual(lines, [1, 1]);
  });
});
