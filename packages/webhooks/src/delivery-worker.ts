import { setMaxListeners } from 'node:events';
import { describeError, type Clock, type Delivery, type DeliveryOutcome, type Logger, type Storage } from '@parley/core';
import { ClaimPump } from '@parley/host';
import type { AttemptResult, DeliveryTransport } from './delivery-transport.js';
import type { RetryPolicy } from './retry-policy.js';
import type { WebhookOptions } from './webhook-options.js';

/** While lanes are blocked behind leased heads, the worker looks again this often (ms). */
const BLOCKED_RECHECK_MS = 1_000;
/** Time kept at the end of a lease to book a batch's outcomes (ms). */
const LEASE_MARGIN_MS = 1_000;

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
 * Claims due lanes from the durable queue — each lane's head with up to `batchSize` deliveries behind
 * it — and hands each lane's batch to its transport (HTTP POSTs in turn, a pipelined sink publish), at
 * most `concurrency` lanes at once, settling each batch in one queue call. It sleeps
 * between wake-ups: on enqueue and redelivery, when an attempt ends, at the queue's next due time, and
 * on the housekeeping sweep. Nothing is acknowledged before the target took it (2xx, broker confirm).
 */
export class DeliveryWorker {
  /** The lanes' batches in flight, by head delivery id, settled when their bookkeeping is done. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** When each target last came back ({@link resumed}), on `performance.now()`'s scale. */
  private readonly resumedAt = new Map<string, number>();
  /**
   * Aborts every attempt in flight when {@link stop} runs out of time. One for all attempts: a stop
   * aborts them all at once anyway, and a controller per attempt was a visible share of its CPU.
   */
  private abort = new AbortController();
  /** Claim rounds; wake-ups of one event-loop turn share one: finding lane heads is the queue's costliest call. */
  private readonly pump = new ClaimPump(() => this.round(), {
    failed: (error, run) => this.deps.logger.error({ error: describeError(error), ...run }, 'delivery queue unavailable; retrying with backoff'),
    recovered: (run) => this.deps.logger.info(run, 'delivery queue available again'),
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
   * Target `url` is reachable again (a sink reconnected). A batch to it that was in flight since before
   * now and fails is retried at once rather than on the schedule: it failed on the connection that was
   * lost, after the host had already made the target's waiting deliveries due.
   */
  resumed(url: string): void {
    this.resumedAt.set(url, performance.now());
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

  /** Claims lanes' batches into the free slots and starts them; the round itself is the pump's. */
  private round(): Promise<boolean> {
    const { storage, options, clock } = this.deps;
    return this.pump.claimRound<Delivery[]>({
      free: () => options.concurrency - this.inFlight.size,
      claim: async (now, limit) => lanesOf(await storage.deliveries.claim({ now, limit, leaseMs: options.leaseMs, perLane: options.batchSize })),
      launch: (lane) => this.launch(lane),
      nextDueAt: () => storage.deliveries.nextDueAt(),
      now: () => clock.now(),
      recheckMs: BLOCKED_RECHECK_MS,
      // While attempts are in flight, each one that ends wakes the worker, which then claims whatever
      // fell due meanwhile: asking the queue for its next due time waits until the worker goes idle.
      deferIdleCheck: () => this.inFlight.size > 0,
    });
  }

  private launch(lane: Delivery[]): void {
    const head = lane[0]!;
    const done = this.attempt(lane, this.abort.signal)
      .catch((error: unknown) => this.deps.logger.error({ err: error, delivery: head.id }, 'delivery attempt bookkeeping failed'))
      .finally(() => {
        this.inFlight.delete(head.id);
        this.wake();
      });
    this.inFlight.set(head.id, done);
  }

  /**
   * Attempts a lane's batch through its transport, then settles it in one queue call: what the target
   * took is sent, the first one it did not is a failed attempt (rescheduled or dead), the rest are
   * released without an attempt, to go after it. On shutdown only what was delivered is booked.
   */
  private async attempt(lane: Delivery[], signal: AbortSignal): Promise<void> {
    const { storage, transportFor, options } = this.deps;
    const transport = transportFor(lane[0]!);
    // Another attempt starts only while the lease has room for it and a second to book the outcomes,
    // and not once the worker is stopping.
    const startBy = performance.now() + options.leaseMs - options.timeoutMs - LEASE_MARGIN_MS;
    const mayStart = () => this.pump.isRunning && performance.now() <= startBy;
    const started = performance.now();
    let results: AttemptResult[];
    try {
      results = await transport.attempt(lane, signal, mayStart);
    } catch (error) {
      results = [{ delivered: false, error: error instanceof Error ? error.message : String(error) }];
    }
    const outcomes: DeliveryOutcome[] = [];
    for (const [i, result] of results.entries()) {
      if (!result.delivered && signal.aborted) break;
      outcomes.push(this.outcomeOf(lane[i]!, result, transport.kind, (this.resumedAt.get(lane[0]!.url) ?? -Infinity) > started));
    }
    if (!signal.aborted) for (const delivery of lane.slice(results.length)) outcomes.push({ id: delivery.id, outcome: 'released' });
    if (outcomes.length > 0) await storage.deliveries.complete(outcomes);
  }

  /** @param cameBack - the target came back while the attempt was in flight: a retry is due at once. */
  private outcomeOf(delivery: Delivery, result: AttemptResult, kind: string, cameBack: boolean): DeliveryOutcome {
    const { policy, clock, logger } = this.deps;
    const attempt = delivery.attempts + 1;
    if (result.delivered) {
      logger.debug({ delivery: delivery.id, instance: delivery.instance, attempt, status: result.status, responseTimeMs: result.responseTimeMs }, `${kind} delivered`);
      return { id: delivery.id, outcome: 'sent', status: result.status, responseTimeMs: result.responseTimeMs };
    }
    const { error, status, responseTimeMs, retryAfterMs, final } = result;
    const scheduled = final ? null : policy.nextAttemptAt(attempt, clock.now(), retryAfterMs);
    const nextAttemptAt = scheduled !== null && cameBack ? clock.now() : scheduled;
    // An answer that refused it (an HTTP status), or no answer at all (network error, time-out, broker down).
    logger.warn({ delivery: delivery.id, instance: delivery.instance, target: origin(delivery.url), attempt, error, status, responseTimeMs, nextAttemptAt },
      status === undefined ? `${kind} attempt failed` : `${kind} receiver refused the delivery`);
    return {
      id: delivery.id, outcome: 'failed',
      failure: { nextAttemptAt, error, ...(status === undefined ? {} : { status }), ...(responseTimeMs === undefined ? {} : { responseTimeMs }) },
    };
  }
}

/** Splits a claim's answer into lanes: each lane's deliveries come together, head first. */
function lanesOf(claimed: Delivery[]): Delivery[][] {
  const lanes: Delivery[][] = [];
  for (const delivery of claimed) {
    const last = lanes.at(-1)?.[0];
    if (last && last.instance === delivery.instance && last.url === delivery.url) lanes.at(-1)!.push(delivery);
    else lanes.push([delivery]);
  }
  return lanes;
}
