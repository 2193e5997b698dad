/**
 * The part of `shutdownTimeoutMs` kept for a stop's last steps (event delivery's last calls, the presence
 * record's delete, the drivers' last writes, storage's close): the first steps (a cluster node's hand-over,
 * events held by a storage outage) are given up before it.
 */
const LAST_STEPS_SHARE = 0.25;
/** The part of `shutdownTimeoutMs` kept for the process to exit once the stop is over: its steps end before it. */
const EXIT_SHARE = 0.05;

/**
 * The time of a graceful stop: `shutdownTimeoutMs`, counted from the stop request. Steps that wait on
 * something that may not answer (a store whose link drops every packet) wait at most what is left.
 */
export class ShutdownBudget {
  /** When the stop's steps end ({@link EXIT_SHARE} before the timeout). */
  private readonly deadline: number;
  /** When its first steps end ({@link LAST_STEPS_SHARE} before that). */
  private readonly firstStepsDeadline: number;
  /** Aborts when the steps' time is spent. */
  readonly spent: AbortSignal;

  constructor(timeoutMs: number) {
    const stepsMs = timeoutMs * (1 - EXIT_SHARE);
    this.deadline = performance.now() + stepsMs;
    this.firstStepsDeadline = this.deadline - timeoutMs * LAST_STEPS_SHARE;
    this.spent = AbortSignal.timeout(stepsMs);
  }

  /** Milliseconds left until the steps' deadline (0 once it has passed). */
  left(): number {
    return Math.max(0, Math.round(this.deadline - performance.now()));
  }

  /** Milliseconds left to the first steps (0 once their time is spent). */
  leftForFirstSteps(): number {
    return Math.max(0, Math.round(this.firstStepsDeadline - performance.now()));
  }
}

/**
 * Resolves when `promise` settles or after `ms` (Infinity: no bound), whichever comes first; answers
 * whether it settled. A rejection is observed here, not thrown.
 */
export function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  if (!Number.isFinite(ms)) return promise.then(() => true, () => true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(done, done);
  });
}
