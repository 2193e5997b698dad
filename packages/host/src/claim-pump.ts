/** What one claim round ({@link ClaimPump.claimRound}) needs from its worker. */
export interface ClaimRound<T> {
  /** Free slots: the concurrency minus the work in flight. */
  free(): number;
  /** Leases up to `limit` units of work due at `now` (a unit may be several queue items, a lane's batch). */
  claim(now: number, limit: number): Promise<T[]>;
  /** Starts one claimed unit; its end must wake the pump. */
  launch(unit: T): void;
  /** The queue's earliest due time (null when it is empty). */
  nextDueAt(): Promise<number | null>;
  /** The queue's clock (Unix ms). */
  now(): number;
  /** How soon to look again while due work is held by leases (ms). */
  recheckMs: number;
  /**
   * True while work in flight will wake the pump as it ends: the round then skips asking for the next due
   * time (as costly as a claim) and only makes sure to look again within `recheckMs`.
   */
  deferIdleCheck?(): boolean;
  /** Caps every sleep at `recheckMs` (a clock that may jump, leases that expire), not only one behind leases. */
  capSleep?: boolean;
  /** Told the due time the round found after its claim (null: empty queue) and the claim time. */
  sawDue?(due: number | null, claimedAt: number): void;
}

/** The wait before retrying after a failed claim round (ms); each further failure in a row doubles it… */
export const CLAIM_RETRY_FIRST_MS = 1_000;
/** …up to this (ms): a store that comes back is used again within half a minute. */
export const CLAIM_RETRY_MAX_MS = 30_000;
/** A run of failed rounds is told at its first failure, then at most once per this period (ms). */
export const CLAIM_FAILURE_LOG_MS = 60_000;

/** The wait after the `failures`-th failed claim round in a row (1 s, 2 s, 4 s, … 30 s). */
export function claimRetryMs(failures: number): number {
  return Math.min(CLAIM_RETRY_FIRST_MS * 2 ** Math.max(0, Math.min(failures - 1, 30)), CLAIM_RETRY_MAX_MS);
}

/** What a {@link ClaimPump} tells its worker's log about failed rounds. */
export interface ClaimPumpReports {
  /**
   * Rounds failed (the store is unreachable or cannot commit): the latest error, the failures in a
   * row so far, the `rounds` failed since the last such line, and the wait before the next try.
   */
  failed(error: unknown, run: { failures: number; rounds: number; retryInMs: number }): void;
  /** A round succeeded after `failures` failed in a row over `failedForMs`. */
  recovered(run: { failures: number; failedForMs: number }): void;
}

/**
 * The wake-up machinery of a worker that claims leased work from a durable queue in rounds (the
 * webhook delivery worker, the outbound send worker). A {@link ClaimPump.wake} asks for a round at the
 * end of the current event-loop turn, so the wake-ups of one turn (a burst of enqueues, attempts that
 * ended together) share one claim; a round that answers true, or a wake during a round, runs another;
 * a timer ({@link ClaimPump.arm}) wakes it at the queue's next due time; a round that throws arms a
 * retry after {@link claimRetryMs} (a bounded exponential backoff, reset by a round that succeeds).
 * Nothing is claimed while rounds fail, so a store that cannot record leases sends nothing twice.
 */
export class ClaimPump {
  private running = false;
  private again = false;
  private pumping: Promise<void> | null = null;
  private scheduled: NodeJS.Immediate | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires, on `performance.now()`'s scale (the timer's own); Infinity when none is armed. */
  private timerAt = Infinity;

  /** Failed rounds in a row, when the first of them failed, and the rounds failed since the last line. */
  private failures = 0;
  private failingSince = 0;
  private unreported = 0;
  private reportedAt = -Infinity;

  /**
   * @param round - one claim round; answers true when it filled every free slot (claim again at once).
   * @param reports - where failed rounds (the store unreachable, or failing to commit) and the recovery
   *   are told: at most one failure line per {@link CLAIM_FAILURE_LOG_MS}, not one per round.
   */
  constructor(
    private readonly round: () => Promise<boolean>,
    private readonly reports: ClaimPumpReports,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  /** Whether a wake-up came during the current round: the round need not arm a timer, another follows. */
  get woken(): boolean {
    return this.again;
  }

  start(): void {
    this.running = true;
    this.wake();
  }

  /** Stops waking and waits for the round in progress. */
  async stop(): Promise<void> {
    this.running = false;
    this.disarm();
    clearImmediate(this.scheduled);
    this.scheduled = undefined;
    await this.pumping;
  }

  /** Asks for a claim round (cheap when one is running: it loops once more). */
  wake(): void {
    if (!this.running) return;
    this.again = true;
    if (this.pumping || this.scheduled) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      this.pumping = this.pump().finally(() => {
        this.pumping = null;
        // A wake-up that came after the last loop check but before this point would be lost otherwise.
        if (this.again) this.wake();
      });
    });
  }

  /** Wakes in `delayMs` (replacing an armed timer). */
  arm(delayMs: number): void {
    this.disarm();
    if (!this.running) return;
    const delay = Math.min(Math.max(0, delayMs), 2 ** 31 - 1);
    this.timerAt = performance.now() + delay;
    this.timer = setTimeout(() => {
      this.timerAt = Infinity;
      this.wake();
    }, delay);
  }

  /** Wakes within `delayMs`, keeping a timer already armed to fire sooner. */
  armWithin(delayMs: number): void {
    if (this.timerAt <= performance.now() + delayMs) return;
    this.arm(delayMs);
  }

  /**
   * One claim round of a worker over a leased queue: claims into the free slots, launches what it got,
   * and answers true when it filled them all (claim again at once). Otherwise, unless a wake-up came
   * meanwhile, it arms the timer for the queue's next due time; a due time at or before the claim means
   * work held by leases (in flight, or a crashed worker's), looked at again after `recheckMs`.
   */
  async claimRound<T>(round: ClaimRound<T>): Promise<boolean> {
    const free = round.free();
    // Full: the next ending unit wakes the pump.
    if (free <= 0) return false;
    const now = round.now();
    const units = await round.claim(now, free);
    for (const unit of units) round.launch(unit);
    if (units.length === free) return true;
    if (this.woken) return false;
    if (round.deferIdleCheck?.()) {
      this.armWithin(round.recheckMs);
      return false;
    }
    const due = await round.nextDueAt();
    round.sawDue?.(due, now);
    if (due === null) {
      this.disarm();
      return false;
    }
    const delay = due > now ? due - round.now() : round.recheckMs;
    this.arm(round.capSleep ? Math.min(delay, round.recheckMs) : delay);
    return false;
  }

  disarm(): void {
    clearTimeout(this.timer);
    this.timerAt = Infinity;
  }

  private async pump(): Promise<void> {
    try {
      while (this.again && this.running) {
        this.again = false;
        if (await this.round()) this.again = true;
        this.recovered();
      }
    } catch (error) {
      this.again = false;
      this.arm(this.failed(error));
    }
  }

  /** Counts a failed round, tells it when a line is due, and answers the wait before the next. */
  private failed(error: unknown): number {
    const now = performance.now();
    if (this.failures++ === 0) this.failingSince = now;
    this.unreported++;
    const retryInMs = claimRetryMs(this.failures);
    if (now - this.reportedAt >= CLAIM_FAILURE_LOG_MS || this.failures === 1) {
      this.reports.failed(error, { failures: this.failures, rounds: this.unreported, retryInMs });
      this.reportedAt = now;
      this.unreported = 0;
    }
    return retryInMs;
  }

  private recovered(): void {
    if (this.failures === 0) return;
    this.reports.recovered({ failures: this.failures, failedForMs: Math.round(performance.now() - this.failingSince) });
    this.failures = 0;
    this.unreported = 0;
    this.reportedAt = -Infinity;
  }
}
