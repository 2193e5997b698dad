import { setMaxListeners } from 'node:events';
import { ClaimPump, type Clock, type Delivery, type Logger, type Storage } from '@parley/core';
import type { AttemptResult, DeliveryTransport } from './delivery-transport.js';
import type { RetryPolicy } from './retry-policy.js';
import type { WebhookOptions } from './webhook-options.js';

/** While lanes are blocked behind leased heads, the worker looks again this often (ms). */
const BLOCKED_RECHECK_MS = 1_000;
/** After a storage error the worker tries again this much later (ms). */
const STORAGE_RETRY_MS = 1_000;

/** What the worker needs. */
export interface DeliveryWorkerDeps {
  storage: Storage;
  /** The transport of a delivery (HTTP for webhooks, a sink for `sink:` targets). */
  transportFor(delivery: Delivery): DeliveryTransport;
  policy: RetryPolicy;
  clock: Clock;
  logger: Logger;
  options: WebhookOptions;
}

/** Origin only: webhook URLs often carry tokens in their path or query. A sink target (`sink:amqp`) is shown whole. */
function origin(url: string): string {
  if (url.startsWith('sink:')) return url;
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid-url';
  }
}

/**
 * Claims due lane heads from the durable queue and hands each to its transport (HTTP POST, sink publish), at most `concurrency` at once. It sleeps
 * between wake-ups: on enqueue and redelivery, when an attempt ends, at the queue's next due time, and
 * on the housekeeping sweep. Nothing is acknowledged before the target took it (2xx, broker confirm).
 */
export class DeliveryWorker {
  /** The attempts in flight, by delivery id, settled when their bookkeeping is done. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /**
   * Aborts every attempt in flight when {@link stop} runs out of time. One for all attempts: a stop
   * aborts them all at once anyway, and a controller per attempt was a visible share of its CPU.
   */
  private abort = new AbortController();
  /** Claim rounds; wake-ups of one event-loop turn share one: finding lane heads is the queue's costliest call. */
  private readonly pump = new ClaimPump(() => this.round(), (error) => {
    this.deps.logger.error({ err: error }, 'delivery queue unavailable; retrying');
    return STORAGE_RETRY_MS;
  });

  constructor(private readonly deps: DeliveryWorkerDeps) {}

  start(): void {
    if (this.abort.signal.aborted) this.abort = new AbortController();
    // Every attempt in flight listens on the signal: up to `concurrency` listeners is expected, not a leak.
    setMaxListeners(0, this.abort.signal);
    this.pump.start();
  }

  /** Asks for a claim round (cheap when one is running: it loops once more). */
  wake(): void {
    this.pump.wake();
  }

  /**
   * Stops claiming, waits up to `stopTimeoutMs` for in-flight attempts, then aborts the rest: those
   * stay leased and are sent again once the lease expires (the receiver may see them twice, with the
   * same `webhook-id`).
   */
  async stop(): Promise<void> {
    await this.pump.stop();
    const pending = [...this.inFlight.values()];
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.deps.options.stopTimeoutMs);
    });
    const result = await Promise.race([Promise.all(pending), bound]);
    clearTimeout(timer);
    if (result === 'timeout') {
      this.deps.logger.warn({ inFlight: this.inFlight.size }, 'deliveries still in flight at shutdown: aborted, retried after their lease');
      this.abort.abort();
      await Promise.all(this.inFlight.values());
    }
  }

  /** One claim round: answers true when it filled every free slot. */
  private async round(): Promise<boolean> {
    const { storage, options, clock } = this.deps;
    const free = options.concurrency - this.inFlight.size;
    // Full: the next ending attempt wakes the worker.
    if (free <= 0) return false;
    const now = clock.now();
    const batch = await storage.deliveries.claim({ now, limit: free, leaseMs: options.leaseMs });
    for (const delivery of batch) this.launch(delivery);
    if (batch.length === free) return true;
    if (!this.pump.woken) {
      // While attempts are in flight, each one that ends wakes the worker, which then claims whatever
      // fell due meanwhile: asking the queue for its next due time (as costly as a claim) waits until
      // the worker goes idle. The recheck bounds the wait when every attempt in flight is slow.
      if (this.inFlight.size > 0) this.pump.armWithin(BLOCKED_RECHECK_MS);
      else await this.sleepUntilDue(now);
    }
    return false;
  }

  /**
   * Arms the timer for the next due delivery. A due time at or before the claim means those deliveries
   * wait behind leased lane heads: an ending attempt wakes the worker, and a lease held by a crashed
   * worker is picked up by a recheck.
   */
  private async sleepUntilDue(claimedAt: number): Promise<void> {
    const due = await this.deps.storage.deliveries.nextDueAt();
    if (due === null) {
      this.pump.disarm();
      return;
    }
    this.pump.arm(due > claimedAt ? due - this.deps.clock.now() : BLOCKED_RECHECK_MS);
  }

  private launch(delivery: Delivery): void {
    const done = this.attempt(delivery, this.abort.signal)
      .catch((error: unknown) => this.deps.logger.error({ err: error, delivery: delivery.id }, 'delivery attempt bookkeeping failed'))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.wake();
      });
    this.inFlight.set(delivery.id, done);
  }

  private async attempt(delivery: Delivery, signal: AbortSignal): Promise<void> {
    const { storage, transportFor, policy, clock, logger } = this.deps;
    // Log bindings are built only for lines that are written: attempts are the hot path.
    const about = () => ({ delivery: delivery.id, instance: delivery.instance, target: origin(delivery.url) });
    const attempt = delivery.attempts + 1;
    const transport = transportFor(delivery);
    let result: AttemptResult;
    try {
      result = await transport.attempt(delivery, signal);
    } catch (error) {
      if (signal.aborted) return;
      result = { delivered: false, error: error instanceof Error ? error.message : String(error) };
    }
    if (signal.aborted && !result.delivered) return;
    if (result.delivered) {
      logger.debug({ delivery: delivery.id, instance: delivery.instance, attempt, status: result.status, responseTimeMs: result.responseTimeMs }, `${transport.kind} delivered`);
      await storage.deliveries.ack(delivery.id, { status: result.status, responseTimeMs: result.responseTimeMs });
      return;
    }
    const { error, status, responseTimeMs, retryAfterMs, final } = result;
    const nextAttemptAt = final ? null : policy.nextAttemptAt(attempt, clock.now(), retryAfterMs);
    // An answer that refused it (an HTTP status), or no answer at all (network error, time-out, broker down).
    logger.warn({ ...about(), attempt, error, status, responseTimeMs, nextAttemptAt },
      status === undefined ? `${transport.kind} attempt failed` : `${transport.kind} receiver refused the delivery`);
    await storage.deliveries.fail(delivery.id, {
      nextAttemptAt, error, ...(status === undefined ? {} : { status }), ...(responseTimeMs === undefined ? {} : { responseTimeMs }),
    });
  }
}
