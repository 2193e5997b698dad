import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { OutcomeUnknownError, ParleyError, ValidationError, type Clock, type IdempotencyStore, type IdempotentAnswer } from '@parley/core';

/** The request header (Stripe's name, and the IETF draft's). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Set to `true` on an answer replayed from a key's first request. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Longest key accepted (Stripe's bound: room for a UUID with a prefix, or a hash). */
export const IDEMPOTENCY_KEY_MAX = 255;
/** Visible ASCII only: a key travels in a header and in logs. */
const KEY_PATTERN = /^[\x21-\x7e]+$/;
/** The schema of the header parameter in the OpenAPI document. */
export const IDEMPOTENCY_KEY_SCHEMA = { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: '^[\\x21-\\x7e]+$' };

/** Timings of {@link IdempotencyGuard}; the defaults are what the documentation states. */
export interface IdempotencyTimings {
  /** How long an answer is kept (24 h). */
  retentionMs: number;
  /**
   * How long the answer of a request run under a cluster's internal key is kept (10 min): only an
   * attempt of the same client request asks for it again, within the forwarding node's handover wait
   * and its connection timeouts, so keeping it a day would only fill the store.
   */
  forwardedRetentionMs: number;
  /** How long a request holds its key while running: a crashed server's key is free again after it (60 s). */
  leaseMs: number;
  /** How long a retry waits for the request holding its key before 409 (30 s). */
  waitMs: number;
  /** First wait between two looks at a key another server holds; doubles up to 500 ms. */
  pollMs: number;
}

export const DEFAULT_IDEMPOTENCY_TIMINGS: IdempotencyTimings = { retentionMs: 24 * 60 * 60 * 1000, forwardedRetentionMs: 10 * 60 * 1000, leaseMs: 60_000, waitMs: 30_000, pollMs: 25 };

/**
 * Who holds keys: the token a request takes a key with (random, prefixed with its server's name in a
 * cluster), and whether the server named in a holder's token is gone (dead: it will never complete).
 */
export interface KeyHolders {
  token(): string;
  gone(owner: string): boolean;
}

/**
 * What a request runs with under a key: `seed` names the run whose work it does — its own, or, when it
 * took over the key of a holder that is gone, the first run's — so a handler deriving ids from it
 * (`RunOptions.rerunnable`) creates what that run would have, and nothing twice.
 */
export type Execute = (seed: string) => Promise<IdempotentAnswer>;

/** A holder's token carries the seed of the run it continues after `#` (its own token otherwise). */
const seedOf = (owner: string): string => (owner.includes('#') ? owner.slice(owner.indexOf('#') + 1) : owner);

/** What {@link IdempotencyGuard.run} may be told about a request. */
export interface RunOptions {
  /** How long its answer is kept (default: the guard's `retentionMs`). */
  retentionMs?: number;
  /**
   * Running it again with a run's seed creates nothing twice (it derives its ids from the seed: a send):
   * when the key's holder is gone ({@link KeyHolders.gone}) it runs at once, continuing that holder's
   * run, instead of waiting out its lease.
   */
  rerunnable?: boolean;
}

/** The outcome of a request under a key: its answer, and whether it is a replay of an earlier one. */
export interface IdempotentOutcome {
  answer: IdempotentAnswer;
  replayed: boolean;
}

/**
 * Runs what a request creates at most once per idempotency key (the Stripe model): the first request
 * with a key takes it in the store and runs; its answer is kept for 24 h and every later request with
 * the same key and the same request answers it again without running. A key reused for a different
 * request answers 422. Requests arriving while the first runs wait for its answer (in this process
 * on its promise, from other servers by polling the store) up to `waitMs`, then 409.
 *
 * Kept answers: successes (2xx), what a key exists for: a retry must not create a second message,
 * group or instance. An error is not kept and frees the key, so a retry runs again: nothing was
 * created (the send path stores and sends nothing on a failure), and most failures of a gateway pass
 * (an instance not connected yet, a media server down, 429, 5xx); a client need not invent a new key
 * to retry once the cause is fixed. Failures before the handler ran (auth, schema) never take the key.
 */
export class IdempotencyGuard {
  /** Requests of this process running under a key: local waiters wake when they end. */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: Clock,
    private readonly timings: IdempotencyTimings = DEFAULT_IDEMPOTENCY_TIMINGS,
    private readonly holders: KeyHolders = { token: () => randomUUID(), gone: () => false },
  ) {}

  /** The key a request carries, or undefined; 400 naming the header when it is malformed. */
  static keyOf(value: string | string[] | undefined): string | undefined {
    if (value === undefined) return undefined;
    const problem = Array.isArray(value) ? 'must be given once'
      : value.length === 0 ? 'must not be empty'
        : value.length > IDEMPOTENCY_KEY_MAX ? `must be at most ${IDEMPOTENCY_KEY_MAX} characters`
          : !KEY_PATTERN.test(value) ? 'must be visible ASCII characters (no spaces)' : undefined;
    if (!problem) return value as string;
    const field = `header.${IDEMPOTENCY_HEADER}`;
    throw new ValidationError(`${field} ${problem}`, { fields: [{ field, message: problem }] });
  }

  /** A digest of what makes two requests the same: method, route, parameters and body (members in any order). */
  static fingerprint(request: unknown): string {
    return createHash('sha256').update(canonicalJson(request)).digest('hex');
  }

  /**
   * Answers the request under `key` in `scope`: runs `execute` when the key is free, or answers the
   * kept answer. 422 `idempotency_key_reused` for another request's key, 409
   * `idempotency_key_in_progress` when its first request is still running after `waitMs`.
   */
  async run(scope: string, key: string, fingerprint: string, execute: Execute, options: RunOptions = {}): Promise<IdempotentOutcome> {
    const retentionMs = options.retentionMs ?? this.timings.retentionMs;
    let continued: string | undefined;
    const id = `${scope}\u0000${key}`;
    const deadline = performance.now() + this.timings.waitMs;
    let pause = this.timings.pollMs;
    for (;;) {
      const owner = continued === undefined ? this.holders.token() : `${this.holders.token()}#${continued}`;
      const now = this.clock.now();
      const held = await this.store.begin(scope, key, { fingerprint, owner, now, expiresAt: now + this.timings.leaseMs });
      if (!held) return { answer: await this.execute({ scope, key, owner, id, retentionMs }, () => execute(seedOf(owner))), replayed: false };
      if (held.fingerprint !== fingerprint) {
        throw new ParleyError(422, 'idempotency_key_reused', `this ${IDEMPOTENCY_HEADER} was used for a different request (another body, route or parameters); use a new key for a new request`);
      }
      if (held.state === 'done' && held.answer) return { answer: held.answer, replayed: true };
      if (options.rerunnable && this.holders.gone(held.owner)) {
        // Its holder died mid-request: this run does its work under its seed, so creates nothing twice.
        await this.store.release(scope, key, held.owner);
        continued = seedOf(held.owner);
        continue;
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new ParleyError(409, 'idempotency_key_in_progress', `a request with this ${IDEMPOTENCY_HEADER} is still being processed; retry later`, { retryAfterSeconds: 1 });
      }
      const local = this.running.get(id);
      if (local) {
        // The timer is cancelled once the holder ends: a pending 30 s timer would hold the process open.
        const timer = new AbortController();
        await Promise.race([local.catch(() => undefined), sleep(left, undefined, { signal: timer.signal }).catch(() => undefined)]);
        timer.abort();
      } else {
        await sleep(Math.min(pause, left));
        pause = Math.min(pause * 2, 500);
      }
    }
  }

  /**
   * Runs a request a cluster node forwarded under its internal key (`x-parley-forward-key`, in a scope of
   * its own): every attempt of one client request carries the same key, so an attempt sent again after
   * the connection to this node broke is answered with the first one's result. When the first attempt is
   * still running past `waitMs` (its node stopped answering) the outcome is unknown: 502 `outcome_unknown`,
   * for the client has no key of its own to wait on.
   */
  async runForwarded(scope: string, key: string, fingerprint: string, execute: Execute, rerunnable = false): Promise<IdempotentOutcome> {
    try {
      return await this.run(`${scope}:forwarded`, key, fingerprint, execute, { retentionMs: this.timings.forwardedRetentionMs, rerunnable });
    } catch (err) {
      if (err instanceof ParleyError && err.code === 'idempotency_key_in_progress') {
        throw new OutcomeUnknownError('an earlier attempt of this request is still running on a cluster node that stopped answering; whether it is carried out is not known. Retry with an Idempotency-Key to be safe', 'owner_unresponsive');
      }
      throw err;
    }
  }

  private async execute(run: { scope: string; key: string; owner: string; id: string; retentionMs: number }, execute: () => Promise<IdempotentAnswer>): Promise<IdempotentAnswer> {
    const { scope, key, owner, id, retentionMs } = run;
    const work = (async () => {
      let answer: IdempotentAnswer;
      try {
        answer = await execute();
      } catch (err) {
        await this.store.release(scope, key, owner);
        throw err;
      }
      if (isKept(answer.status)) {
        const now = this.clock.now();
        // Done is done: when only keeping the answer fails (storage failing), the answer still goes to
        // the client, whom an error would invite to run it twice; the key frees itself after its lease.
        await this.store.complete(scope, key, { owner, answer, now, expiresAt: now + retentionMs }).catch(() => undefined);
      } else {
        await this.store.release(scope, key, owner);
      }
      return answer;
    })();
    this.running.set(id, work);
    try {
      return await work;
    } finally {
      this.running.delete(id);
    }
  }
}

/** Whether an answer with `status` is kept for retries (see {@link IdempotencyGuard}). */
function isKept(status: number): boolean {
  return status >= 200 && status < 300;
}

/** JSON with object members sorted by name, so `{a, b}` and `{b, a}` are one request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
