import type { EnqueueOutcome, NewOutbound, Outbound, OutboundPage, OutboundQueue } from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';

interface OutboundRow {
  [column: string]: unknown;
  seq: number;
  instance: string;
  id: string;
  lane: string;
  ord: number;
  due_at: number;
  created_at: number;
  attempts: number;
  last_error: string | null;
  lease_until: number | null;
  payload: string;
}

function toOutbound(row: OutboundRow): Outbound {
  return {
    id: row.id, instance: row.instance, lane: row.lane, dueAt: row.due_at, createdAt: row.created_at, payload: row.payload,
    order: row.ord, attempts: row.attempts,
    ...(row.lease_until === null ? {} : { leasedUntil: row.lease_until }),
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
  };
}

/** A row is its lane's head when no row of the lane comes before it. */
const IS_HEAD = `NOT EXISTS (SELECT 1 FROM outbound AS p WHERE p.instance = o.instance AND p.lane = o.lane
  AND (p.ord < o.ord OR (p.ord = o.ord AND p.seq < o.seq)))`;
const NOT_PAUSED = 'o.instance NOT IN (SELECT instance FROM outbound_paused)';

/**
 * Due, claimable lane heads, soonest first: unleased rows through the partial `outbound_due` index
 * (only rows already due are read), rows whose lease expired through `outbound_leases`.
 */
const DUE = `
  SELECT * FROM (
    SELECT o.* FROM outbound AS o WHERE o.lease_until IS NULL AND o.due_at <= @now AND ${NOT_PAUSED} AND ${IS_HEAD}
    UNION ALL
    SELECT o.* FROM outbound AS o WHERE o.lease_until IS NOT NULL AND o.lease_until <= @now AND o.due_at <= @now AND ${NOT_PAUSED} AND ${IS_HEAD}
  ) ORDER BY due_at, seq LIMIT @limit`;

/**
 * The outbound queue in the `outbound` table (migration 5). Every method is one statement or one
 * transaction in the turn's batch, durable at the next commit ({@link SqliteStorage.flush}): the
 * server flushes before it answers a request, and a completion or release lost to a crash only makes
 * the entry claimable again (where the worker finds its record and sends nothing twice).
 */
export class SqliteOutboundQueue implements OutboundQueue {
  /**
   * Size changes of the current batch, by instance, written once just before it commits (so in the same
   * transaction as the rows they count): a send enqueued and completed within one batch costs no write.
   */
  private readonly pendingCounts = new Map<string, number>();
  private readonly writeCounts = (): void => {
    for (const [instance, delta] of this.pendingCounts) {
      if (delta === 0) continue;
      this.db.run('INSERT INTO outbound_counts (instance, n) VALUES (?, ?) ON CONFLICT (instance) DO UPDATE SET n = n + excluded.n', [instance, delta]);
    }
    this.pendingCounts.clear();
  };

  constructor(private readonly db: SqliteDatabase) {}

  async enqueue(item: NewOutbound, bound: number, lease?: { now: number; leaseMs: number }): Promise<EnqueueOutcome> {
    // Reads then one write: atomic under the batch's write lock without a savepoint.
    return this.db.locked((): EnqueueOutcome => {
      // One read for the bound, whether the send heads its lane (nothing of the lane comes before it: an
      // equal order enqueued earlier does) and whether the instance is paused.
      const state = this.db.get<{ n: number | null; ahead: number | null; paused: number | null }>(
        `SELECT (SELECT n FROM outbound_counts WHERE instance = @instance) AS n,
           (SELECT 1 FROM outbound WHERE instance = @instance AND lane = @lane AND ord <= @dueAt LIMIT 1) AS ahead,
           (SELECT 1 FROM outbound_paused WHERE instance = @instance) AS paused`,
        { instance: item.instance, lane: item.lane, dueAt: item.dueAt },
      )!;
      if ((state.n ?? 0) + (this.pendingCounts.get(item.instance) ?? 0) >= bound) return 'full';
      const leased = lease !== undefined && item.dueAt <= lease.now && state.ahead === null && state.paused === null;
      const inserted = this.db.run(
        `INSERT INTO outbound (instance, id, lane, ord, due_at, created_at, payload, lease_until)
         VALUES (@instance, @id, @lane, @dueAt, @dueAt, @createdAt, @payload, @leaseUntil) ON CONFLICT (instance, id) DO NOTHING`,
        {
          instance: item.instance, id: item.id, lane: item.lane, dueAt: item.dueAt, createdAt: item.createdAt, payload: item.payload,
          leaseUntil: leased ? lease.now + lease.leaseMs : null,
        },
      );
      // A duplicate id is stored once.
      if (inserted === 0) return 'queued';
      this.countBy(item.instance, 1);
      return leased ? 'leased' : 'queued';
    });
  }

  /** Selects and leases in one transaction committed at once, so two claimers never share a head. */
  async claim({ now, limit, leaseMs }: { now: number; limit: number; leaseMs: number }): Promise<Outbound[]> {
    return this.db.transactionNow(() => this.db.all<OutboundRow>(DUE, { now, limit }).map((row) => {
      this.db.run('UPDATE outbound SET lease_until = ? WHERE seq = ?', [now + leaseMs, row.seq]);
      return toOutbound({ ...row, lease_until: now + leaseMs });
    }));
  }

  async complete(instance: string, id: string): Promise<void> {
    this.remove(instance, id);
  }

  async release(instance: string, id: string, update: { dueAt: number; failed?: { error: string } }): Promise<void> {
    if (update.failed) {
      this.db.run('UPDATE outbound SET lease_until = NULL, due_at = ?, attempts = attempts + 1, last_error = ? WHERE instance = ? AND id = ?',
        [update.dueAt, update.failed.error, instance, id]);
    } else {
      this.db.run('UPDATE outbound SET lease_until = NULL, due_at = ? WHERE instance = ? AND id = ?', [update.dueAt, instance, id]);
    }
    await this.db.flush();
  }

  async cancel(instance: string, id: string, now: number): Promise<'cancelled' | 'sending' | 'unknown'> {
    const outcome = this.db.transaction(() => {
      const row = this.db.get<{ lease_until: number | null }>('SELECT lease_until FROM outbound WHERE instance = ? AND id = ?', [instance, id]);
      if (!row) return 'unknown' as const;
      if (row.lease_until !== null && row.lease_until > now) return 'sending' as const;
      this.remove(instance, id);
      return 'cancelled' as const;
    });
    await this.db.flush();
    return outcome;
  }

  async get(instance: string, id: string): Promise<Outbound | null> {
    const row = this.db.get<OutboundRow>('SELECT * FROM outbound WHERE instance = ? AND id = ?', [instance, id]);
    return row ? toOutbound(row) : null;
  }

  async list(instance: string, page: { limit: number; offset: number }): Promise<OutboundPage> {
    const rows = this.db.all<OutboundRow>('SELECT * FROM outbound WHERE instance = ? ORDER BY due_at, seq LIMIT ? OFFSET ?',
      [instance, page.limit, page.offset]);
    return { items: rows.map(toOutbound), total: await this.count(instance) };
  }

  async count(instance: string): Promise<number> {
    return this.size(instance);
  }

  async setPaused(instance: string, paused: boolean): Promise<void> {
    if (paused) this.db.run('INSERT INTO outbound_paused (instance) VALUES (?) ON CONFLICT DO NOTHING', [instance]);
    else this.db.run('DELETE FROM outbound_paused WHERE instance = ?', [instance]);
    await this.db.flush();
  }

  async isPaused(instance: string): Promise<boolean> {
    return this.db.get('SELECT 1 AS x FROM outbound_paused WHERE instance = ?', [instance]) !== undefined;
  }

  /**
   * Never later than the true next due time: the earliest unleased row of an unpaused instance (a lane
   * head or not; a row behind its head answers early, and the claim then finds nothing) and the earliest
   * lease expiry. Both are index reads.
   */
  async nextDueAt(): Promise<number | null> {
    const due = this.db.get<{ at: number | null }>(
      `SELECT o.due_at AS at FROM outbound AS o WHERE o.lease_until IS NULL AND ${NOT_PAUSED} ORDER BY o.due_at LIMIT 1`)?.at ?? null;
    const lease = this.db.get<{ at: number | null }>('SELECT MIN(lease_until) AS at FROM outbound WHERE lease_until IS NOT NULL')?.at ?? null;
    if (due === null) return lease;
    return lease === null ? due : Math.min(due, lease);
  }

  async clear(instance: string): Promise<void> {
    this.db.transaction(() => {
      this.db.run('DELETE FROM outbound WHERE instance = ?', [instance]);
      this.db.run('DELETE FROM outbound_counts WHERE instance = ?', [instance]);
      this.pendingCounts.delete(instance);
      this.db.run('DELETE FROM outbound_paused WHERE instance = ?', [instance]);
    });
    await this.db.flush();
  }

  private remove(instance: string, id: string): void {
    if (this.db.run('DELETE FROM outbound WHERE instance = ? AND id = ?', [instance, id]) > 0) this.countBy(instance, -1);
  }

  /** Queued sends of an instance: the stored count plus this batch's changes. */
  private size(instance: string): number {
    const stored = this.db.get<{ n: number }>('SELECT n FROM outbound_counts WHERE instance = ?', [instance])?.n ?? 0;
    return stored + (this.pendingCounts.get(instance) ?? 0);
  }

  private countBy(instance: string, delta: number): void {
    this.pendingCounts.set(instance, (this.pendingCounts.get(instance) ?? 0) + delta);
    this.db.beforeCommit(this.writeCounts);
  }
}
