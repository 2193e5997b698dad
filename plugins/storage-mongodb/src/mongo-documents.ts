/** An auth state entry: opaque text by instance, category and id. */
export interface AuthStateDocument {
  instance: string;
  category: string;
  id: string;
  value: string;
}

/**
 * A non-empty delivery lane (instance + URL). `headId`/`headSeq` name its oldest queued delivery;
 * `dueAt` is when a claim may take it (its lease end while leased, else its `nextAttemptAt`);
 * `version` changes on every write, so recomputing the head is a compare-and-set.
 */
export interface LaneDocument {
  _id: string;
  instance: string;
  headId: string;
  headSeq: number;
  dueAt: number;
  leasedId: string | null;
  leaseUntil: number | null;
  version: number;
}

/** Webhook counters of one instance; pending is counted from the queue itself. */
export interface StatsDocument {
  _id: string;
  sent: number;
  failed: number;
  responseTimeSum: number;
  responseCount: number;
}

/** A named sequence. */
export interface CounterDocument {
  _id: string;
  value: number;
}

/**
 * A value one instance holds exclusively (UniqueClaim). The unique index on (namespace, value) makes
 * the claim; `instance` is indexed to release an instance's claims.
 */
export interface ClaimDocument {
  namespace: string;
  value: string;
  instance: string;
  /** When it was claimed (ms): a claim whose instance never appeared is reclaimable after a while. */
  at: number;
}

/** One queued send; `_id` is `<instance>\n<id>`. */
export interface OutboundDocument {
  _id: string;
  instance: string;
  id: string;
  lane: string;
  order: number;
  seq: number;
  dueAt: number;
  createdAt: number;
  payload: string;
  attempts: number;
  lastError?: string;
  leasedUntil?: number;
}

/** An idempotency key (IdempotencyRecord); `_id` is scope NUL key, `removeAt` feeds the TTL index. */
export interface IdempotencyDocument {
  _id: string;
  state: 'in_progress' | 'done';
  fingerprint: string;
  owner: string;
  expiresAt: number;
  removeAt: Date;
  /** The answer as JSON text, once done. */
  answer?: string;
}
