/** What {@link KeyedBatches} runs: a batch of one key's calls, and a call alone. */
export interface BatchRunner<I, O> {
  /** Runs `items` (in call order) together; answers their results in the same order. */
  many(key: string, items: I[]): Promise<O[]>;
  /** Runs one call alone. */
  one(key: string, item: I): Promise<O>;
  /** Whether a batch that failed with `err` is run again call by call (an error of one call's input), rather than failing every call. */
  retryAlone(err: unknown): boolean;
  /** The size of a call's input (bytes it sends), which a batch's sum keeps under {@link KeyedBatches}' `maxWeight`. */
  weight(item: I): number;
}

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(err: unknown): void;
}

/**
 * Calls grouped by key, run one batch at a time per key, in call order: a call made while its key has
 * none in flight starts at once (alone); the calls made while one is in flight form the next batch, up
 * to `max` calls and `maxWeight` (a first call heavier than that goes alone). A key's calls were a chain of round trips one after another; under load the chain now costs
 * a round trip per batch. A batch that fails for one call's input is run again call by call, so only
 * that call fails.
 */
export class KeyedBatches<I, O> {
  private readonly waiting = new Map<string, Waiting<I, O>[]>();
  private readonly running = new Set<string>();

  constructor(private readonly runner: BatchRunner<I, O>, private readonly max: number, private readonly maxWeight: number) {}

  call(key: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push({ item, resolve, reject });
      this.waiting.set(key, queue);
      if (!this.running.has(key)) this.next(key);
    });
  }

  private next(key: string): void {
    const queue = this.waiting.get(key);
    if (!queue) {
      this.running.delete(key);
      return;
    }
    let size = 1;
    let weight = this.runner.weight(queue[0]!.item);
    while (size < Math.min(this.max, queue.length)) {
      weight += this.runner.weight(queue[size]!.item);
      if (weight > this.maxWeight) break;
      size++;
    }
    const batch = queue.splice(0, size);
    if (queue.length === 0) this.waiting.delete(key);
    this.running.add(key);
    void this.run(key, batch).finally(() => this.next(key));
  }

  private async run(key: string, batch: Waiting<I, O>[]): Promise<void> {
    try {
      if (batch.length === 1) {
        batch[0]!.resolve(await this.runner.one(key, batch[0]!.item));
        return;
      }
      const results = await this.runner.many(key, batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => waiting.resolve(results[i]!));
    } catch (err) {
      if (batch.length === 1 || !this.runner.retryAlone(err)) {
        for (const waiting of batch) waiting.reject(err);
        return;
      }
      for (const waiting of batch) {
        await this.runner.one(key, waiting.item).then(waiting.resolve, waiting.reject);
      }
    }
  }
}
