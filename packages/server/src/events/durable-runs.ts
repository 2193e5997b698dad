import type { Handled, HandledRun, RunHandler } from './run-handler.js';

/** A run of an instance's events handled once, not over yet. */
interface Pending {
  readonly run: HandledRun;
  /**
   * `waiting` for its writes to be durable; `again` when they may have been discarded; `redoing` while
   * it is handled again (its first outcome no longer counts); `durable` once they are (or it was given up).
   */
  state: 'waiting' | 'again' | 'redoing' | 'durable';
  /** Given up while handled again (logged and counted there). */
  givenUp: boolean;
  readonly over: (handled: Handled) => void;
  readonly done: Promise<void>;
  readonly resolve: () => void;
}

/**
 * The runs of each instance that the subscribers have handled and whose writes are not known to be
 * durable yet, in order. The instance's chain does not wait for them: its next events are handled at
 * once, so their writes share a group commit (SQLite) with the runs before. A run is over — its events
 * told to the watchers and taps, {@link settled} waiters released — once its writes are durable and every
 * earlier run of the instance is over. When a run's writes may have been discarded (its handling or its
 * commit failed for storage, or a commit failed while it was handled or waited: SQLite rolls back every
 * write of the turn), every run of the instance not over yet is handled again, in order, each until its
 * writes are durable, on the instance's chain (before its next event), under the outage policy.
 */
export class DurableRuns {
  private readonly pending = new Map<string, Pending[]>();

  /** `schedule` queues a task on the instance's chain (after the tasks queued there already). */
  constructor(private readonly runs: RunHandler, private readonly schedule: (instance: string, task: () => Promise<void>) => void) {}

  /** Adds a run handled once; `over` is told when it is over (in the instance's order). */
  add(run: HandledRun, over: (handled: Handled) => void): void {
    const instance = run.runtime.id;
    const { promise: done, resolve } = Promise.withResolvers<void>();
    const entry: Pending = { run, state: 'waiting', givenUp: false, over, done, resolve };
    const list = this.pending.get(instance);
    if (list) list.push(entry);
    else this.pending.set(instance, [entry]);
    void run.outcome.then((outcome) => {
      if (entry.state !== 'waiting') return;
      entry.state = outcome;
      if (outcome === 'durable') this.release(instance);
      else this.schedule(instance, () => this.again(instance));
    });
  }

  /**
   * On the instance's chain: when a run of the instance may have lost writes, handles every run not over
   * again, in order (a later one may share the lost commit, and must not overtake the earlier one).
   */
  async again(instance: string): Promise<void> {
    const list = this.pending.get(instance);
    if (!list?.some((e) => e.state === 'again' || (e.state === 'waiting' && this.runs.mayBeDiscarded(e.run)))) return;
    for (const entry of [...list]) {
      entry.state = 'redoing';
      entry.givenUp = (await this.runs.again(entry.run)) !== undefined;
      entry.state = 'durable';
      this.release(instance);
    }
  }

  /**
   * On the instance's chain: resolves once every run of the instance handled so far is over, handling
   * again those that lost writes (a task in the instance's event order must not overtake them).
   */
  async settle(instance: string): Promise<void> {
    for (let list = this.pending.get(instance); list?.length; list = this.pending.get(instance)) {
      // The outcomes' own handlers (attached first) have run when this wait ends.
      if (list.some((e) => e.state === 'waiting')) await Promise.all(list.map((e) => e.run.outcome));
      await this.again(instance);
    }
  }

  /** Resolves once every run of the instance handled so far is over (off the chain: the chain does the work). */
  settled(instance: string): Promise<void> {
    return this.pending.get(instance)?.at(-1)?.done ?? Promise.resolve();
  }

  /** Resolves once every run of every instance handled so far is over. */
  async idle(): Promise<void> {
    await Promise.all([...this.pending.values()].map((list) => list.at(-1)!.done));
  }

  /** Ends the runs at the head of the instance's list whose writes are durable. */
  private release(instance: string): void {
    const list = this.pending.get(instance);
    if (!list) return;
    while (list.length && list[0]!.state === 'durable') {
      const entry = list.shift()!;
      entry.over(this.runs.finish(entry.run, entry.givenUp));
      entry.resolve();
    }
    if (!list.length) this.pending.delete(instance);
  }
}
