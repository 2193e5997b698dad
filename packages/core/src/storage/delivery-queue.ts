import type { LoggedEvent } from './event-log.js';

/** A webhook delivery to enqueue: one rendered payload for one URL. */
export interface NewDelivery {
  /** Stable id across retries (the `webhook-id` header). Unique. */
  id: string;
  instance: string;
  url: string;
  /** Webhook format that rendered it (`native`, `meta`). */
  format: string;
  eventId: string;
  eventType: string;
  /** The exact JSON body to POST. */
  body: string;
  /** Unix ms. */
  createdAt: number;
}

/** A queued delivery with its attempt bookkeeping. */
export interface Delivery extends NewDelivery {
  /** Attempts made so far. */
  attempts: number;
  /** Unix ms when it is due. */
  nextAttemptAt: number;
  lastError?: string;
  lastStatus?: number;
}

/** A delivery that exhausted its schedule. */
export interface DeadLetter extends Delivery {
  /** Unix ms. */
  deadAt: number;
}

/** Outcome of a failed attempt. */
export interface DeliveryFailure {
  /** When to try again (Unix ms), or null to dead-letter it. */
  nextAttemptAt: number | null;
  error: string;
  /** HTTP status, when the receiver answered. */
  status?: number;
  /** Response time in ms, when the receiver answered. */
  responseTimeMs?: number;
}

/**
 * How one claimed delivery ended, for {@link DeliveryQueue.complete}: `sent` as {@link DeliveryQueue.ack},
 * `failed` as {@link DeliveryQueue.fail}, `released` when it was claimed but not attempted (an earlier
 * delivery of its lane failed, or the worker is stopping): its lease ends, no attempt is counted and its
 * due time stays.
 */
export type DeliveryOutcome =
  | { id: string; outcome: 'sent'; status: number; responseTimeMs: number }
  | { id: string; outcome: 'failed'; failure: DeliveryFailure }
  | { id: string; outcome: 'released' };

/** Webhook statistics of one instance (spec 2.3), exact and persisted. */
export interface WebhookStats {
  /** Deliveries acknowledged with 2xx. */
  totalSent: number;
  /** Failed attempts: non-2xx answers, timeouts and network errors, each attempt counted once. */
  totalFailed: number;
  /** Deliveries queued and not yet acknowledged or dead-lettered. */
  totalPending: number;
  /** Mean response time in whole milliseconds over every attempt that got an HTTP answer. */
  avgResponseTime: number;
}

/**
 * The durable webhook delivery queue. Deliveries are grouped in lanes (instance + URL); within a lane
 * only the oldest delivery is claimable, so order is kept per instance and URL, and a stuck lane never
 * holds up another. Every method is atomic: a delivery enqueued is never lost, and never claimed by
 * two workers while its lease holds.
 */
export interface DeliveryQueue {
  /**
   * Writes all deliveries durably (resolves only after they are persisted). Duplicate ids are ignored.
   * Each starts with 0 attempts, due at its `createdAt`; a lane keeps enqueue order.
   *
   * `events` are appended to the storage's event log ({@link EventLog.append}: a logged id is ignored)
   * in the same atomic write: after a crash either the deliveries and the entries are all stored or none
   * are. The server logs each handled event this way, so "logged" means "its deliveries are queued".
   * With no deliveries the entries are written as `EventLog.append` writes them (readable on return,
   * durable at the next {@link Storage.flush}).
   */
  enqueue(deliveries: NewDelivery[], events?: LoggedEvent[]): Promise<void>;
  /**
   * Optional, for back ends that commit writes in groups (those with `Storage.onDiscard`): writes what
   * {@link enqueue} writes, as atomically, into the group of writes under way, and resolves once they
   * are written (readable) without waiting for that group's commit, so they share it with the caller's
   * other writes (the event bus's run). Answers `durable`, which resolves once the group holding them
   * is committed and rejects when it was discarded (the deliveries and entries are gone: the caller
   * enqueues them again). {@link claim} never answers a delivery before it is durable. Back ends that
   * commit each write before it resolves leave it out: callers use `enqueue`.
   */
  enqueueInBatch?(deliveries: NewDelivery[], events?: LoggedEvent[]): Promise<{ durable: Promise<void> }>;
  /**
   * Leases up to `limit` lane heads due at `now` and not leased, for `leaseMs`. A lease that expires
   * (worker crash) makes the delivery claimable again. Answers the oldest due first (by `nextAttemptAt`,
   * then enqueue order); claiming does not count an attempt.
   *
   * With `perLane` above 1 (default 1), each claimed head comes with up to `perLane − 1` deliveries that
   * follow it in its lane, in lane order, stopping at the first one not due at `now`; the answer holds
   * each lane's deliveries together, head first. They ride on the head's lease: only heads are
   * claimable, so nobody else can claim them while it holds, and they come back with it after a crash.
   * The caller settles a lane's batch with one {@link complete} (never with an `ack` of the head alone,
   * which would make the next one claimable while it is still in flight).
   */
  claim(options: { now: number; limit: number; leaseMs: number; perLane?: number }): Promise<Delivery[]>;
  /**
   * Applies the outcomes of claimed deliveries in order, atomically, and resolves once they are
   * durable: what {@link ack} and {@link fail} do for `sent` and `failed`, and for `released` the end of
   * its lease without counting an attempt. Unknown ids (already settled, cleared) are ignored.
   */
  complete(outcomes: DeliveryOutcome[]): Promise<void>;
  /**
   * Makes the postponed lane heads of target `url` (every instance's lanes to it) due at `now`, without
   * counting an attempt: a target that was unreachable and is back (a sink's broker reconnected) gets
   * its pending deliveries at once, in lane order, instead of at each lane's next retry time. Leased
   * heads and dead letters are left alone. Answers how many it made due.
   */
  expedite(url: string, now: number): Promise<number>;
  /** Removes a delivered item and counts it sent. An unknown id (already acked, cleared) is ignored. */
  ack(id: string, result: { responseTimeMs: number; status: number }): Promise<void>;
  /**
   * Counts a failed attempt and releases the lease; reschedules it, or moves it to the dead letters (dead
   * now) when `nextAttemptAt` is null. `lastStatus` becomes `status` (absent when not given). An unknown id
   * is ignored.
   */
  fail(id: string, failure: DeliveryFailure): Promise<void>;
  /**
   * Earliest `nextAttemptAt` among unleased lane heads (a leased head counts at its lease expiry), or null
   * when nothing is queued (lets workers sleep): the earliest time a claim can answer something.
   */
  nextDueAt(): Promise<number | null>;
  /** Dead letters of an instance, oldest dead first (then enqueue order). */
  deadLetters(instance: string, page: { limit: number; offset: number }): Promise<{ items: DeadLetter[]; total: number }>;
  /**
   * Moves dead letters (all of the instance when `ids` is omitted) back to the queue, due now, with
   * attempts back at 0 (a fresh retry schedule). Answers how many.
   */
  redeliver(instance: string, ids?: string[]): Promise<number>;
  /**
   * Deletes these dead letters of the instance (ids that are not dead letters of it are left alone).
   * Answers how many. The webhook engine calls it once their events were queued again for the
   * instance's current settings (redelivery to `target: current`), so they are not redelivered twice.
   */
  discardDeadLetters(instance: string, ids: string[]): Promise<number>;
  /** Deletes dead letters older than `before` (Unix ms). Answers how many. */
  purgeDeadLetters(before: number): Promise<number>;
  stats(instance: string): Promise<WebhookStats>;
  /** Deletes every queued delivery, dead letter and counter of the instance. */
  clear(instance: string): Promise<void>;
}
