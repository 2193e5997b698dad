import { KeyedSerialQueue, type EnqueueOutcome, type NewOutbound, type Outbound, type OutboundPage, type OutboundQueue } from '@parley/core';
import { outboundOf, type OutboundRow } from '@parley/storage-sql';
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
   * instance's `outbound_counts` row one after another anyway.
   */
  private readonly enqueues = new KeyedSerialQueue();

  constructor(private readonly db: PgDatabase) {}

  enqueue(item: NewOutbound, bound: number, lease?: { now: number; leaseMs: number }): Promise<EnqueueOutcome> {
    return this.enqueues.run(item.instance, () => this.enqueueNow(item, bound, lease));
  }

  /**
   * One call of the `outbound_enqueue` function (migration 2), its own transaction, committed without
   * waiting for its WAL flush: durable once `Storage.flush` resolves (OutboundQueue's contract), which the
   * server awaits before it answers or sends. An instance's enqueues run one after another (above), and
   * each takes the instance's `outbound_counts` row, so a disk flush each would bound the instance's
   * accepted sends per second; concurrent flushes share one.
   */
  private async enqueueNow(item: NewOutbound, bound: number, lease?: { now: number; leaseMs: number }): Promise<EnqueueOutcome> {
    if (bound <= 0) return 'full';
    try {
      const row = await this.db.get<{ outcome: EnqueueOutcome }>(
        "SELECT set_config('synchronous_commit', 'off', true) AS relaxed, outbound_enqueue($1, $2, $3, $4, $5, $6, $7, $8, $9) AS outcome",
        [item.instance, item.id, item.lane, item.dueAt, item.createdAt, item.payload, bound, lease?.now ?? null, lease ? lease.now + lease.leaseMs : null],
      );
      return row!.outcome;
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
   * row (which every enqueue of the instance takes) held only until the commit. When the send's message
   * record is stored, the completion does not wait for its WAL flush (`synchronous_commit` off for this
   * transaction only): lost in a crash of the server, the entry is claimed again, finds its record and is
   * completed without a second send (the worker's resume path), so the flush buys nothing. The next
   * `Storage.flush` waits for it.
   */
  async complete(instance: string, id: string): Promise<void> {
    // The send's record is a group-commit write: committed first, so that an entry is never completed
    // while its record could still be discarded (and so that the check below sees it).
    await this.db.committedWrites();
    try {
      await this.db.get(COMPLETE, [instance, id]);
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

  async list(instance: string, page: { limit: number; offset: number }): Promise<OutboundPage> {
    const [rows, total] = await Promise.all([
      this.db.all<OutboundRow>('SELECT * FROM outbound WHERE instance = $1 ORDER BY due_at, seq LIMIT $2 OFFSET $3', [instance, page.limit, page.offset]),
      this.count(instance),
    ]);
    return { items: rows.map(outboundOf), total };
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
