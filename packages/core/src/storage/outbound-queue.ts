/** A send to enqueue: one message, already validated and resolved, waiting for its channel. */
export interface NewOutbound {
  /** The message id the send answered; unique within the instance. */
  id: string;
  instance: string;
  /**
   * Ordering lane: the recipient (chat JID or social user id, with its provider). Within a lane only
   * the head is claimable, so sends to one recipient leave in order.
   */
  lane: string;
  /** Unix ms before which it must not be sent (`delay`, `sendAt`); the lane's order key. */
  dueAt: number;
  /** Unix ms. */
  createdAt: number;
  /** The encoded send (content, recipient, options), opaque to the store. */
  payload: string;
}

/** A queued send with its bookkeeping. */
export interface Outbound extends NewOutbound {
  /**
   * Position in the lane: the `dueAt` it was enqueued with. Fixed for its life, so a head deferred by
   * pacing or a rate limit keeps its place and the lane waits behind it.
   */
  order: number;
  /** Failed attempts so far (claims that ended in {@link OutboundQueue.release} with `failed`). */
  attempts: number;
  /** Unix ms until which a worker holds it, or absent when nobody does. */
  leasedUntil?: number;
  lastError?: string;
}

/**
 * What {@link OutboundQueue.enqueue} did: `full` (nothing stored), `queued` (stored, waiting for a
 * worker), `paused` (stored, waiting, and the instance was paused when it was enqueued: the caller
 * tells so without reading the flag again) or `leased` (stored, leased to the caller).
 */
export type EnqueueOutcome = 'full' | 'queued' | 'paused' | 'leased';

/** One page of an instance's queue. */
export interface OutboundPage {
  items: Outbound[];
  total: number;
}

/**
 * The durable outbound queue of every instance (issue 16): every send is written here before the API
 * answers, and a worker claims it, sends it through its channel and completes it.
 *
 * Delivery semantics: a claim leases the entry; a worker that dies leaves the lease to expire and the
 * entry is claimed again. Completing is one atomic removal, and the server writes the sent message
 * record (keyed by the same id) before it, so a worker that finds the record of a claimed entry knows
 * the channel took it and completes it without sending again. The one window this cannot close is a
 * crash after the channel accepted the message and before its record was written; channels that take
 * the message id from the sender (WhatsApp, the sandbox) then send the same id again, which receivers
 * treat as the same message.
 *
 * Every method is atomic with respect to the others and to other workers sharing the store. Writes
 * are durable once {@link Storage.flush} resolves (the server flushes before it answers a request;
 * back ends that commit each write are durable at once). A completion or release lost to a crash
 * before that only leaves the entry to be claimed again.
 */
export interface OutboundQueue {
  /**
   * Stores the send durably unless the instance already holds `bound` queued sends (answers 'full' and
   * stores nothing). A send left waiting answers 'paused' when the instance is paused at that moment
   * (read in the same atomic step), else 'queued'; a duplicate id is stored once and answers the same
   * way. With `lease`, a send that is due (`dueAt <= lease.now`), heads its lane and belongs to an
   * instance that is not paused is stored already leased to the caller until `lease.now + lease.leaseMs`,
   * in the same atomic step, and answers 'leased': the caller sends it at once, and if it dies the lease
   * expires and a worker sends it.
   */
  enqueue(item: NewOutbound, bound: number, lease?: { now: number; leaseMs: number }): Promise<EnqueueOutcome>;
  /**
   * Leases up to `limit` lane heads due at `now` (`dueAt <= now`), not leased (or whose lease expired),
   * of instances that are not paused, for `leaseMs`. Oldest due first, then enqueue order.
   */
  claim(options: { now: number; limit: number; leaseMs: number }): Promise<Outbound[]>;
  /** Removes a sent (or finally failed) entry. An unknown id is ignored. */
  complete(instance: string, id: string): Promise<void>;
  /**
   * Releases the lease and makes the entry due at `dueAt` (pacing deferral, retry after a rate limit);
   * it keeps its place in its lane. With `failed` it counts an attempt and keeps `error`.
   */
  release(instance: string, id: string, update: { dueAt: number; failed?: { error: string } }): Promise<void>;
  /**
   * Removes an entry no worker holds (a lease that expired counts as not held). Answers 'cancelled',
   * 'sending' (a worker holds it: it may be on its way) or 'unknown'.
   */
  cancel(instance: string, id: string, now: number): Promise<'cancelled' | 'sending' | 'unknown'>;
  get(instance: string, id: string): Promise<Outbound | null>;
  /** Queued sends of an instance by due time, then enqueue order. */
  list(instance: string, page: { limit: number; offset: number }): Promise<OutboundPage>;
  count(instance: string): Promise<number>;
  /** A paused instance's entries stay queued and are not claimed until it is resumed. */
  setPaused(instance: string, paused: boolean): Promise<void>;
  isPaused(instance: string): Promise<boolean>;
  /**
   * The earliest time a claim can answer something: the earliest `dueAt` of unleased lane heads of
   * unpaused instances (a leased head counts at its lease expiry), or null when there is none.
   */
  nextDueAt(): Promise<number | null>;
  /** Deletes every entry and the paused flag of the instance. */
  clear(instance: string): Promise<void>;
}

/** Orders queue entries by lane position: `order`, then enqueue sequence. */
export function byLaneOrder(a: { order: number; seq: number }, b: { order: number; seq: number }): number {
  return a.order - b.order || a.seq - b.seq;
}
