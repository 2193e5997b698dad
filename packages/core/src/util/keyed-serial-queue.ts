/**
 * Runs tasks one at a time per key, in the order they were queued, while tasks of different keys run
 * concurrently. A failed task does not stop the ones queued after it. Keys without queued work are
 * forgotten, so the queue does not grow with every key ever seen.
 */
export class KeyedSerialQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `task` after every task queued earlier under `key`; answers (or rejects with) its result. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(() => undefined, () => undefined);
    this.tails.set(key, tail);
    void tail.finally(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /**
   * Resolves once every task queued so far under `key` has ended (fulfilled or not), without queuing
   * anything: tasks queued later do not wait for the caller.
   */
  after(key: string): Promise<void> {
    return this.tails.get(key) ?? Promise.resolve();
  }

  /** Resolves once no task is queued under any key, including tasks queued while waiting. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.allSettled([...this.tails.values()]);
  }
}
