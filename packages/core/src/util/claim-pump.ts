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

/**
 * The wake-up machinery of a worker that claims leased work from a durable queue in rounds (the
 * webhook delivery worker, the outbound send worker). A {@link ClaimPump.wake} asks for a round at the
 * end of the current event-loop turn, so the wake-ups of one turn (a burst of enqueues, attempts that
 * ended together) share one claim; a round that answers true, or a wake during a round, runs another;
 * a timer ({@link ClaimPump.arm}) wakes it at the queue's next due time; a round that throws arms a
 * retry after the delay `onError` answers.
 */
export class ClaimPump {
  private running = false;
  private again = false;
  private pumping: Promise<void> | null = null;
  private scheduled: NodeJS.Immediate | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires, on `performance.now()`'s scale (the timer's own); Infinity when none is armed. */
  private timerAt = Infinity;

  /**
   * @param round - one claim round; answers true when it filled every free slot (claim again at once).
   * @param onError - told of a failed round (the store is unreachable); answers when to try again (ms).
   */
  constructor(
    private readonly round: () => Promise<boolean>,
    private readonly onError: (error: unknown) => number,
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
      }
    } catch (error) {
      this.again = false;
      this.arm(this.onError(error));
    }
  }
}
