import { ServiceUnavailableError, type EnqueueOutcome, type NewOutbound, type Outbound, type OutboundPage, type OutboundQueue } from '@parley/core';
import { outboundOf, type OutboundRow } from '@parley/storage-sql';
import { KeyedBatches } from '../keyed-batches.js';
import { Rollback, type PgDatabase, type Queryable } from '../pg-database.js';
import { Lanes } from './lanes.pg.js';

/** A lane's head is its lowest (ord, seq), claimable at its lease end while leased, else at its due time. */
const LANES = new Lanes({
  lanes: 'outbound_lanes', rows: 'outbound', lane: 'lane', order: 'r.ord, r.seq', member: 'true', readyAt: 'coalesce(r.lease_until, r.due_at)',
});

/** The lane of an entry ($1 instance, $2 id). */
const LANE_OF = 'SELECT lane FROM outbound WHERE instance = $1 AND id = $2';

/**
 * The completion of entry $2 of instance $1 (the `outbound_complete` function, migration 5), committed
 * without waiting for its WAL flush when the entry's message record is stored.
 */
const COMPLETE = `SELECT CASE WHEN EXISTS (SELECT 1 FROM messages AS m WHERE m.instance = $1 AND m.id = $2)
  THEN set_config('synchronous_commit', 'off', true) END AS relaxed, outbound_complete($1, $2) AS completed`;

/** One enqueue, as {@link PgOutboundQueue.enqueue} is called. */
interface Enqueue { item: NewOutbound; bound: number; lease?: { now: number; leaseMs: number } | undefined }

/** Enqueues of one statement at most, and characters of their payloads (media travel inside them): the rest go into the next. */
const MAX_ENQUEUES = 200;
const MAX_ENQUEUE_CHARS = 4 * 1024 * 1024;

/** Enqueues of instance $1 ($2–$9: one array element each), with whether the instance is paused. */
const ENQUEUE = `SELECT set_config('synchronous_commit', 'off', true) AS relaxed,
  outbound_enqueue_many($1, $2, $3, $4, $5, $6, $7, $8, $9) AS outcomes,
  EXISTS (SELECT 1 FROM outbound_paused WHERE instance = $1) AS paused`;

/**
 * The completions of entries $2 (distinct ids) of instance $1, committed without waiting for the WAL flush when every
 * one's message record is stored (each looked up by its key: LATERAL … LIMIT 1 is never turned into a scan of the instance).
 */
const COMPLETE_MANY = `SELECT CASE WHEN (SELECT count(*) FROM unnest($2::text[]) AS k (id)
    CROSS JOIN LATERAL (SELECT 1 FROM messages AS m WHERE m.instance = $1 AND m.id = k.id LIMIT 1) AS m) = cardinality($2::text[])
  THEN set_config('synchronous_commit', 'off', true) END AS relaxed, outbound_complete_many($1, $2) AS completed`;

/**
 * A page ($2 entries after the first $3) of instance $1's queue by due time, beside its size, in one statement
 * (one snapshot). The queue is walked along `outbound_by_instance` one entry after another (each step the next
 * (due_at, seq) of the instance, LIMIT 1), up to the page's end, then the page's entries are read by their seq.
 * As `ORDER BY due_at, seq LIMIT $2 OFFSET $3`, a plan made on a young table read and sorted the instance's
 * whole queue for every page.
 */
export const LIST = `
  WITH RECURSIVE walk (n, due_at, seq) AS (
    SELECT 1::bigint, f.due_at, f.seq FROM (SELECT due_at, seq FROM outbound WHERE instance = $1 ORDER BY due_at, seq LIMIT 1) AS f
    UNION ALL
    SELECT w.n + 1, f.due_at, f.seq FROM walk AS w CROSS JOIN LATERAL (
      SELECT due_at, seq FROM outbound WHERE instance = $1 AND (due_at, seq) > (w.due_at, w.seq) ORDER BY due_at, seq LIMIT 1
    ) AS f WHERE w.n < $2::bigint + $3::bigint
  )
  SELECT c.n AS list_total, o.* FROM (SELECT coalesce((SELECT n FROM outbound_counts WHERE instance = $1), 0) AS n) AS c
  LEFT JOIN LATERAL (
    SELECT r.* FROM walk AS w CROSS JOIN LATERAL (SELECT * FROM outbound WHERE seq = w.seq LIMIT 1) AS r
    WHERE w.n > $3::bigint AND w.n <= $2::bigint + $3::bigint
  ) AS o ON true
  ORDER BY o.due_at, o.seq`;

const NOT_PAUSED = 'NOT EXISTS (SELECT 1 FROM outbound_paused AS p WHERE p.instance = l.instance)';

/**
 * Leases up to $2 heads due at $1 of unpaused instances until $3, in one statement: head rows FOR UPDATE
 * SKIP LOCKED, so claimers on several nodes never share a head nor wait for each other. Each lane's head
 * is looked up by its key (LATERAL … LIMIT 1: a lookup per lane row); as a plain join the planner chose
 * to hash the whole queue on every claim, so a claim cost grew with the backlog (68 ms with 761 queued
 * sends under bench/rest-send).
 */
const CLAIM = `
  WITH picked AS (
    SELECT l.instance, l.lane, l.ready_at FROM outbound_lanes AS l
    CROSS JOIN LATERAL (SELECT 1 FROM outbound AS o WHERE o.seq = l.head AND o.due_at <= $1 LIMIT 1) AS o
    WHERE l.ready_at <= $1 AND ${NOT_PAUSED}
    ORDER BY l.ready_at, l.head LIMIT $2 FOR UPDATE OF l SKIP LOCKED
  ),
  leased AS (
    UPDATE outbound_lanes AS l SET ready_at = $3 FROM picked AS p WHERE l.instance = p.instance AND l.lane = p.lane
    RETURNING l.head, p.ready_at AS was_ready
  )
  UPDATE outbound AS o SET lease_until = $3 FROM leased WHERE o.seq = leased.head RETURNING o.*, leased.was_ready`;

/**
 * The outbound queue in the `outbound` table, each lane's head in `outbound_lanes` ({@link Lanes}) and each
 * instance's size in `outbound_counts`, whose row also serializes the bound check of an instance's
 * enqueues. Every method is one statement or one transaction, committed when it resolves.
 */
export class PgOutboundQueue implements OutboundQueue {
  /**
   * An instance's enqueues of this process run in call order, as on the other back ends: the pool would
   * run concurrent ones in whatever order its connections get them, so which of two sends started
   * together gets the last place under the bound, or heads its lane, would be chance. They wait on the
   * instance's `outbound_counts` row one after another anyway, so those made while one is in flight go
   * together: one call of `outbound_enqueue_many` (migration 7), each enqueue as `outbound_enqueue` does it.
   */
  private readonly enqueues = new KeyedBatches<Enqueue, EnqueueOutcome>({
    one: (instance, enqueue) => this.enqueueNow(instance, [enqueue]).then(([outcome]) => outcome!),
    many: (instance, enqueues) => this.enqueueNow(instance, enqueues),
    // An outage fails them all; an error of one enqueue's input (a payload PostgreSQL refuses) fails only that one.
    retryAlone: (err) => !(err instanceof ServiceUnavailableError),
    weight: (enqueue) => enqueue.item.payload.length,
  }, MAX_ENQUEUES, MAX_ENQUEUE_CHARS);

  /** An instance's completions, those made while one is in flight together ({@link complete}). */
  private readonly completions = new KeyedBatches<string, void>({
    one: (instance, id) => this.completeNow(instance, [id]),
    many: async (instance, ids) => {
      await this.completeNow(instance, ids);
      return ids.map(() => undefined);
    },
    retryAlone: (err) => !(err instanceof ServiceUnavailableError),
    weight: () => 1,
  }, MAX_ENQUEUES, MAX_ENQUEUES);

  constructor(private readonly db: PgDatabase) {}

  enqueue(item: NewOutbound, bound: number, lease?: { now: number; leaseMs: number }): Promise<EnqueueOutcome> {
    if (bound <= 0) return Promise.resolve('full');
    return this.enqueues.call(item.instance, { item, bound, lease });
  }

  /**
   * One statement for enqueues of `instance`, in order, its own transaction, committed without waiting
   * for its WAL flush: durable once `Storage.flush` resolves (OutboundQueue's contract), which the
   * server awaits before it answers or sends. An instance's enqueues run one batch after another (above),
   * and each takes the instance's `outbound_counts` row, so a disk flush each would bound the instance's
   * accepted sends per second; concurrent flushes share one.
   */
  private async enqueueNow(instance: string, enqueues: readonly Enqueue[]): Promise<EnqueueOutcome[]> {
    try {
      // The paused flag in the same statement (the function answers 'queued' for a paused instance too):
      // the caller needs no read of its own after the enqueue.
      const row = await this.db.get<{ outcomes: ('full' | 'queued' | 'leased')[]; paused: boolean }>(ENQUEUE, [
        instance,
        enqueues.map((e) => e.item.id), enqueues.map((e) => e.item.lane), enqueues.map((e) => e.item.dueAt),
        enqueues.map((e) => e.item.createdAt), enqueues.map((e) => e.item.payload), enqueues.map((e) => e.bound),
        enqueues.map((e) => e.lease?.now ?? null), enqueues.map((e) => (e.lease ? e.lease.now + e.lease.leaseMs : null)),
      ]);
      return row!.outcomes.map((outcome) => (outcome === 'queued' && row!.paused ? 'paused' : outcome));
    } finally {
      // Also after a failure: a statement cut off after its COMMIT left may have committed.
      this.db.committedWithoutFlush();
    }
  }

  async claim({ now, limit, leaseMs }: { now: number; limit: number; leaseMs: number }): Promise<Outbound[]> {
    if (limit <= 0) return [];
    return (await this.db.all<OutboundRow & { was_ready: number }>(CLAIM, [now, limit, now + leaseMs]))
      .sort((a, b) => a.was_ready - b.was_ready || a.seq - b.seq)
      .map(outboundOf);
  }

  /**
   * One call of the `outbound_complete` function (migration 5): one round trip, and the instance's count
   * row (which every enqueue of the instance takes) held only until the commit; the completions of an
   * instance made while one is in flight go together, one call of `outbound_complete_many` (migration 8).
   * When the sends' message records are stored, the completion does not wait for its WAL flush
   * (`synchronous_commit` off for this transaction only): lost in a crash of the server, the entry is
   * claimed again, finds its record and is completed without a second send (the worker's resume path), so
   * the flush buys nothing. The next `Storage.flush` waits for it.
   */
  async complete(instance: string, id: string): Promise<void> {
    // The send's record is a group-commit write: committed first, so that an entry is never completed
    // while its record could still be discarded (and so that the check below sees it).
    await this.db.committedWrites();
    await this.completions.call(instance, id);
  }

  private async completeNow(instance: string, ids: readonly string[]): Promise<void> {
    try {
      if (ids.length === 1) await this.db.get(COMPLETE, [instance, ids[0]]);
      else await this.db.get(COMPLETE_MANY, [instance, [...new Set(ids)]]);
    } finally {
      this.db.committedWithoutFlush();
    }
  }

  async release(instance: string, id: string, update: { dueAt: number; failed?: { error: string } }): Promise<void> {
    await this.inLane(instance, id, async (tx) => {
      await tx.run(
        `UPDATE outbound SET lease_until = NULL, due_at = $3, attempts = attempts + $4, last_error = coalesce($5, last_error)
         WHERE instance = $1 AND id = $2`,
        [instance, id, update.dueAt, update.failed ? 1 : 0, update.failed?.error ?? null],
      );
    });
  }

  async cancel(instance: string, id: string, now: number): Promise<'cancelled' | 'sending' | 'unknown'> {
    const outcome = await this.inLane(instance, id, async (tx) => {
      const row = await tx.get<{ lease_until: number | null }>('SELECT lease_until FROM outbound WHERE instance = $1 AND id = $2', [instance, id]);
      if (!row) return 'unknown' as const;
      if (row.lease_until !== null && row.lease_until > now) return 'sending' as const;
      await this.remove(tx, instance, id);
      return 'cancelled' as const;
    });
    return outcome ?? 'unknown';
  }

  async get(instance: string, id: string): Promise<Outbound | null> {
    const row = await this.db.get<OutboundRow>('SELECT * FROM outbound WHERE instance = $1 AND id = $2', [instance, id]);
    return row ? outboundOf(row) : null;
  }

  /** A page and the total in one statement (one snapshot: an entry is never counted and not listed, or listed and not counted). */
  async list(instance: string, page: { limit: number; offset: number }): Promise<OutboundPage> {
    const rows = await this.db.all<OutboundRow & { list_total: number }>(LIST, [instance, page.limit, page.offset]);
    return { items: rows.filter((row) => row.id !== null).map(outboundOf), total: rows[0]?.list_total ?? 0 };
  }

  async count(instance: string): Promise<number> {
    return (await this.db.get<{ n: number }>('SELECT n FROM outbound_counts WHERE instance = $1', [instance]))?.n ?? 0;
  }

  async setPaused(instance: string, paused: boolean): Promise<void> {
    if (paused) await this.db.run('INSERT INTO outbound_paused (instance) VALUES ($1) ON CONFLICT DO NOTHING', [instance]);
    else await this.db.run('DELETE FROM outbound_paused WHERE instance = $1', [instance]);
  }

  async isPaused(instance: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS paused FROM outbound_paused WHERE instance = $1', [instance])) !== undefined;
  }

  /** The earliest head of an unpaused instance: a walk of `outbound_lanes_ready` from its start. */
  async nextDueAt(): Promise<number | null> {
    return (await this.db.get<{ at: number }>(`SELECT l.ready_at AS at FROM outbound_lanes AS l WHERE ${NOT_PAUSED} ORDER BY l.ready_at LIMIT 1`))?.at ?? null;
  }

  async clear(instance: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run('SELECT 1 FROM outbound_lanes WHERE instance = $1 ORDER BY lane FOR UPDATE', [instance]);
      await tx.run('DELETE FROM outbound WHERE instance = $1', [instance]);
      await tx.run('DELETE FROM outbound_lanes WHERE instance = $1', [instance]);
      await tx.run('DELETE FROM outbound_counts WHERE instance = $1', [instance]);
      await tx.run('DELETE FROM outbound_paused WHERE instance = $1', [instance]);
    });
  }

  /**
   * Runs `work` in a transaction holding the lane of entry `id`, then moves the lane's head on; answers
   * undefined (changing nothing) for an unknown id.
   */
  private inLane<T>(instance: string, id: string, work: (tx: Queryable) => Promise<T>): Promise<T | undefined> {
    return this.db.transaction(async (tx) => {
      const row = await tx.get<{ lane: string }>(LANE_OF, [instance, id]);
      if (!row) return new Rollback(undefined);
      const lane = { instance, lane: row.lane };
      await LANES.lock(tx, [lane]);
      const result = await work(tx);
      await LANES.refresh(tx, [lane]);
      return result;
    });
  }

  private async remove(tx: Queryable, instance: string, id: string): Promise<void> {
    if (await tx.run('DELETE FROM outbound WHERE instance = $1 AND id = $2', [instance, id]) === 0) return;
    await tx.run('UPDATE outbound_counts SET n = n - 1 WHERE instance = $1', [instance]);
  }
}
