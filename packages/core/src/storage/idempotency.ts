/** The answer an idempotent request gave, kept to answer its retries again. */
export interface IdempotentAnswer {
  /** HTTP status. */
  status: number;
  /** The JSON body as sent. */
  body: unknown;
}

/**
 * What the store holds under one idempotency key: a request still being answered (`in_progress`),
 * or its answer (`done`).
 */
export interface IdempotencyRecord {
  state: 'in_progress' | 'done';
  /**
   * Identifies the request that took the key (a hash of its method, route, parameters and body):
   * a retry with another fingerprint is a different request.
   */
  fingerprint: string;
  /** Random token of the holder; only it may complete or release an `in_progress` record. */
  owner: string;
  /**
   * Unix ms after which the record counts as absent: for `in_progress` the end of the holder's lease
   * (a crashed holder does not block the key for ever), for `done` the end of the retention (24 h).
   */
  expiresAt: number;
  /** The answer, when `done`. */
  answer?: IdempotentAnswer;
}

/** What {@link IdempotencyStore.begin} takes: who takes the key, for which request, until when. */
export interface IdempotencyClaim {
  fingerprint: string;
  owner: string;
  /** The caller's current time (Unix ms, from the injected clock): records expired by then are absent. */
  now: number;
  /** End of the lease of the `in_progress` record it creates. */
  expiresAt: number;
}

/** What {@link IdempotencyStore.complete} takes. */
export interface IdempotencyCompletion {
  owner: string;
  answer: IdempotentAnswer;
  /** The caller's current time (Unix ms, from the injected clock). */
  now: number;
  /** End of the retention of the answer. */
  expiresAt: number;
}

/**
 * Idempotency keys of the REST API (the `Idempotency-Key` header), so a retried request answers
 * its first answer instead of doing the work twice. Keys live in a `scope` (an instance id, or
 * `admin` for admin routes): the same key in two scopes is two keys. Kept in the storage back end,
 * so they hold across restarts and across servers sharing the store. Expiry is by the `expiresAt`
 * of each record compared with the caller's `now` (the injected clock); back ends also drop expired
 * records on their own (a TTL, an index, a sweep), so the store does not grow without bound.
 */
export interface IdempotencyStore {
  /**
   * Takes `key` in `scope` for a request, atomically: when no live record exists (none, or one whose
   * `expiresAt` is not after `claim.now`), stores an `in_progress` record from `claim` and answers
   * null — the caller now runs the request. Otherwise answers the live record untouched (another
   * request holds the key, or its answer is kept). Of concurrent calls for one key, exactly one
   * answers null.
   */
  begin(scope: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyRecord | null>;
  /**
   * Stores the answer of the request holding the key: the record becomes `done` until
   * `done.expiresAt`. Answers false (and changes nothing) when `done.owner` no longer holds it (its
   * lease ran out and another request took the key).
   */
  complete(scope: string, key: string, done: IdempotencyCompletion): Promise<boolean>;
  /**
   * Drops the `in_progress` record `owner` holds (the request ended without an answer worth
   * keeping), so a retry runs anew. Does nothing when `owner` does not hold the key.
   */
  release(scope: string, key: string, owner: string): Promise<void>;
  /** The live record of `key` in `scope` at `now`, or null (none, or expired). */
  get(scope: string, key: string, now: number): Promise<IdempotencyRecord | null>;
}
