/**
 * Runs tasks with the same key one after another, in the order they were handed in; tasks of different
 * keys run concurrently. A pool runs concurrent statements in whatever order its connections get them,
 * so without it two sends of one instance started together could be stored in either order.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    // The map holds a key only while it has a task in flight.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
