import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedSerialQueue } from '../src/index.js';

/** A promise with its resolver, so a test decides when a task finishes. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('KeyedSerialQueue', () => {
  it('runs the tasks of one key one at a time, in queue order, and answers each result', async () => {
    const queue = new KeyedSerialQueue();
    const order: string[] = [];
    const first = gate();
    const a = queue.run('k', async () => {
      order.push('a start');
      await first.promise;
      order.push('a end');
      return 'A';
    });
    const b = queue.run('k', async () => {
      order.push('b');
      return 'B';
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['a start']);
    first.open();
    assert.deepEqual(await Promise.all([a, b]), ['A', 'B']);
    assert.deepEqual(order, ['a start', 'a end', 'b']);
  });

  it('runs tasks of different keys concurrently', async () => {
    const queue = new KeyedSerialQueue();
    const blocked = gate();
    const slow = queue.run('one', () => blocked.promise.then(() => 'slow'));
    assert.equal(await queue.run('two', async () => 'fast'), 'fast');
    blocked.open();
    assert.equal(await slow, 'slow');
  });

  it('keeps going after a failed task and rejects only that task', async () => {
    const queue = new KeyedSerialQueue();
    const failed = queue.run('k', async () => {
      throw new Error('boom');
    });
    const next = queue.run('k', async () => 'after');
    await assert.rejects(failed, /boom/);
    assert.equal(await next, 'after');
  });

  it('idle() waits for every queued task, including tasks queued meanwhile', async () => {
    const queue = new KeyedSerialQueue();
    const done: string[] = [];
    void queue.run('a', async () => {
      done.push('a');
      void queue.run('b', async () => {
        done.push('b');
      });
    });
    await queue.idle();
    assert.deepEqual(done, ['a', 'b']);
    await queue.idle();
  });
});
