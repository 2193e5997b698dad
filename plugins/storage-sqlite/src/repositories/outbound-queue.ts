import type { EnqueueOutcome, NewOutbound, Outbound, OutboundPage, OutboundQueue } from '@parley/core';
import { outboundOf, type OutboundRow } from '@parley/storage-sql';
import type { SqliteDatabase, Undo } from '../sqlite-database.js';

const NOT_PAUSED = 'l.instance NOT IN (SELECT instance FROM outbound_paused)';

/** Lane heads ready to be claimed at @now (due, not leased or lease expired), soonest first. */
const READY = `
  SELECT o.* FROM outbound_lanes AS l JOIN outbound AS o ON o.seq = l.head
  WHERE l.ready_at <= +@now AND o.due_at <= +@now AND ${NOT_PAUSED}
  ORDER BY l.ready_at, l.head LIMIT @limit`;

/** Leases the entries of a JSON array of seqs (rowid lookups). */
const LEASE_ENTRIES = 'UPDATE outbound SET lease_until = ? WHERE seq IN (SELECT value FROM json_each(?))';
/** Makes the lanes of a JSON array of `[instance, lane]` ready at a lease's end (primary-key lookups). */
const LEASE_LANES = 'UPDATE outbound_lanes SET ready_at = ? WHERE (instance, lane) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))';

/** Writes a lane's head row from its first entry (lane order), when it has one; changes no row otherwise. */
const REFRESH_LANE = `
  INSERT INTO outbound_lanes (instance, lane, head, ready_at)
  SELECT instance, lane, seq, coalesce(lease_until, due_at) FROM outbound WHERE instance = +? AND lane = +? ORDER BY ord, seq LIMIT 1
  ON CONFLICT (instance, lane) DO UPDATE SET head = excluded.head, ready_at = excluded.ready_at`;

/**
 * The outbound queue in the `outbound` table (migration 6), with each lane's head in `outbound_lanes`.
 * Every method is one statement or one atomic step in the turn's batch (a transaction, or for an
 * enqueue and a completion an undoable write: {@link SqliteDatabase.undoable}), durable at the next commit
 * ({@link SqliteStorage.flush}): the server flushes before it answers a request, and a completion or release lost to a crash only makes
 * the entry claimable again (where the worker finds its record and sends nothing twice).
 *
 * A send enqueued already leased (the API sends it inline) is written when the batch commits, not at
 * once: most are completed within the same batch, and a row inserted and deleted by one transaction
 * never reaches the file, so such a send costs no queue write at all. Until then it is held in
 * {@link SqliteOutboundQueue.unwritten}; it counts towards the bound at once, and every method that
 * reads or changes entries (all but an enqueue to another lane, its own completion, the count and the
 * paused flag) writes such sends first. Each commit therefore holds exactly what writing at enqueue
 * would have left, and no method can tell the difference.
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

  /**
   * Sends enqueued leased in the current batch and not written yet, by `instance\nid`, and their lanes
   * (`instance\nlane`: one each, since an enqueue to such a lane writes them first). Written just
   * before the batch commits, or before any other use of the queue.
   */
  private readonly unwritten = new Map<string, { item: NewOutbound; leaseUntil: number }>();
  private readonly unwrittenLanes = new Set<string>();
  private readonly writeUnwritten = (): void => {
    if (this.unwritten.size === 0) return;
    const entries = [...this.unwritten.values()];
    this.unwritten.clear();
    this.unwrittenLanes.clear();
    this.db.transaction(() => {
      for (const { item, leaseUntil } of entries) this.insert(item, leaseUntil, true);
    });
  };

  /**
   * Instances the current batch read with no entry in the table and not paused, and wrote no entry of
   * since, with their committed size: the batch holds the write lock, so nobody else wrote one either,
   * and an enqueue for them needs no read. Forgotten when the batch commits.
   */
  private readonly emptyInBatch = new Map<string, number>();
  private readonly forgetBatch = (): void => this.emptyInBatch.clear();

  constructor(private readonly db: SqliteDatabase) {
    // A rolled-back batch takes its size changes, its unwritten sends (their requests fail with it)
    // and what it learned of empty instances along.
    db.onDiscard(() => {
      this.pendingCounts.clear();
      this.unwritten.clear();
      this.unwrittenLanes.clear();
      this.emptyInBatch.clear();
    });
  }

  async enqueue(item: NewOutbound, bound: number, lease?: { now: number; leaseMs: number }): Promise<EnqueueOutcome> {
    const key = `${item.instance}\n${item.id}`;
    const laneKey = `${item.instance}\n${item.lane}`;
    // Behind a send of its lane that is not written yet: write it, so that the read below sees it.
    if (this.unwrittenLanes.has(laneKey)) this.writeUnwritten();
    return this.db.locked((): EnqueueOutcome => {
      const state = this.stateOf(item);
      if ((state.n ?? 0) + (this.pendingCounts.get(item.instance) ?? 0) >= bound) return 'full';
      const waiting = state.paused === null ? 'queued' : 'paused';
      // A duplicate id is stored once.
      if (state.stored !== null || this.unwritten.has(key)) return waiting;
      if (lease !== undefined && item.dueAt <= lease.now && state.ahead === null && state.paused === null) {
        this.unwritten.set(key, { item, leaseUntil: lease.now + lease.leaseMs });
        this.unwrittenLanes.add(laneKey);
        this.db.beforeCommit(this.writeUnwritten);
        this.countBy(item.instance, 1);
        return 'leased';
      }
      // Counted once written: a write that failed leaves the size as it was.
      this.db.undoable((undo) => this.insert(item, null, state.ahead === null, undo));
      this.countBy(item.instance, 1);
      return waiting;
    });
  }

  /**
   * Selects and leases in one transaction of the turn's batch, which holds the write lock from its
   * BEGIN IMMEDIATE: another connection's claim waits for the commit and then sees the leases, so two
   * claimers never share a head. Answered once the batch committed (sharing the turn's commit): a
   * failed commit (disk full) rolled the leases back, and sending on a lease that is not held would
   * let the next claim send the same message again.
   */
  async claim({ now, limit, leaseMs }: { now: number; limit: number; leaseMs: number }): Promise<Outbound[]> {
    this.writeUnwritten();
    const claimed = this.db.transaction(() => {
      const rows = this.db.all<OutboundRow>(READY, { now, limit });
      if (rows.length === 0) return [];
      // Every head claimed in two statements, whatever their number: the leases, then their lanes' ready times.
      const until = now + leaseMs;
      this.db.run(LEASE_ENTRIES, [until, JSON.stringify(rows.map((row) => row.seq))]);
      this.db.run(LEASE_LANES, [until, JSON.stringify(rows.map((row) => [row.instance, row.lane]))]);
      return rows.map((row) => outboundOf({ ...row, lease_until: until }));
    });
    if (claimed.length > 0) await this.db.flush();
    return claimed;
  }

  async complete(instance: string, id: string): Promise<void> {
    const key = `${instance}\n${id}`;
    const unwritten = this.unwritten.get(key);
    if (unwritten) {
      // Sent within the batch that enqueued it: it never reaches the file.
      this.unwritten.delete(key);
      this.unwrittenLanes.delete(`${instance}\n${unwritten.item.lane}`);
      this.countBy(instance, -1);
      return;
    }
    this.db.undoable((undo) => this.remove(instance, id, undo));
  }

  async release(instance: string, id: string, update: { dueAt: number; failed?: { error: string } }): Promise<void> {
    this.writeUnwritten();
    this.db.transaction(() => {
      const row = this.db.write<{ seq: number; lane: string }>(
        `UPDATE outbound SET lease_until = NULL, due_at = @dueAt, attempts = attempts + @failed, last_error = coalesce(@error, last_error)
         WHERE instance = +@instance AND id = +@id RETURNING seq, lane`,
        { dueAt: update.dueAt, failed: update.failed ? 1 : 0, error: update.failed?.error ?? null, instance, id },
      );
      if (row) this.refreshLane(instance, row.lane);
    });
  }

  async cancel(instance: string, id: string, now: number): Promise<'cancelled' | 'sending' | 'unknown'> {
    this.writeUnwritten();
    const outcome = this.db.transaction(() => {
      const row = this.db.get<{ lease_until: number | null }>('SELECT lease_until FROM outbound WHERE instance = +? AND id = +?', [instance, id]);
      if (!row) return 'unknown' as const;
      if (row.lease_until !== null && row.lease_until > now) return 'sending' as const;
      this.remove(instance, id);
      return 'cancelled' as const;
    });
    await this.db.flush();
    return outcome;
  }

  async get(instance: string, id: string): Promise<Outbound | null> {
    this.writeUnwritten();
    const row = this.db.get<OutboundRow>('SELECT * FROM outbound WHERE instance = +? AND id = +?', [instance, id]);
    return row ? outboundOf(row) : null;
  }

  async list(instance: string, page: { limit: number; offset: number }): Promise<OutboundPage> {
    this.writeUnwritten();
    const rows = this.db.all<OutboundRow>('SELECT * FROM outbound WHERE instance = +? ORDER BY due_at, seq LIMIT ? OFFSET ?',
      [instance, page.limit, page.offset]);
    return { items: rows.map(outboundOf), total: await this.count(instance) };
  }

  async count(instance: string): Promise<number> {
    return this.size(instance);
  }

  async setPaused(instance: string, paused: boolean): Promise<void> {
    this.emptyInBatch.delete(instance);
    if (paused) this.db.run('INSERT INTO outbound_paused (instance) VALUES (?) ON CONFLICT DO NOTHING', [instance]);
    else this.db.run('DELETE FROM outbound_paused WHERE instance = +?', [instance]);
    await this.db.flush();
  }

  async isPaused(instance: string): Promise<boolean> {
    return this.db.get('SELECT 1 AS x FROM outbound_paused WHERE instance = +?', [instance]) !== undefined;
  }

  /** The earliest time a lane head of an unpaused instance becomes claimable: an index read. */
  async nextDueAt(): Promise<number | null> {
    this.writeUnwritten();
    return this.db.get<{ at: number }>(`SELECT l.ready_at AS at FROM outbound_lanes AS l WHERE ${NOT_PAUSED} ORDER BY l.ready_at LIMIT 1`)?.at ?? null;
  }

  async clear(instance: string): Promise<void> {
    this.writeUnwritten();
    // Its size starts again from nothing.
    this.emptyInBatch.delete(instance);
    this.db.transaction(() => {
      this.db.run('DELETE FROM outbound WHERE instance = +?', [instance]);
      this.db.run('DELETE FROM outbound_lanes WHERE instance = +?', [instance]);
      this.db.run('DELETE FROM outbound_counts WHERE instance = +?', [instance]);
      this.pendingCounts.delete(instance);
      this.db.run('DELETE FROM outbound_paused WHERE instance = +?', [instance]);
    });
    await this.db.flush();
  }

  /**
   * What an enqueue decides on, in one read: the committed size (the bound), whether the id is stored
   * already, whether the send heads its lane (nothing of the lane comes before it: an equal order
   * enqueued earlier does) and whether the instance is paused. No read for an instance in
   * {@link SqliteOutboundQueue.emptyInBatch}.
   */
  private stateOf(item: NewOutbound): { n: number | null; stored: number | null; ahead: number | null; paused: number | null } {
    const size = this.emptyInBatch.get(item.instance);
    if (size !== undefined) return { n: size, stored: null, ahead: null, paused: null };
    const state = this.db.get<{ n: number | null; any: number | null; stored: number | null; ahead: number | null; paused: number | null }>(
      `SELECT (SELECT n FROM outbound_counts WHERE instance = +@instance) AS n,
         (SELECT 1 FROM outbound WHERE instance = +@instance LIMIT 1) AS any,
         (SELECT 1 FROM outbound WHERE instance = +@instance AND id = +@id) AS stored,
         (SELECT 1 FROM outbound WHERE instance = +@instance AND lane = +@lane AND ord <= +@dueAt LIMIT 1) AS ahead,
         (SELECT 1 FROM outbound_paused WHERE instance = +@instance) AS paused`,
      { instance: item.instance, id: item.id, lane: item.lane, dueAt: item.dueAt },
    )!;
    if (state.any === null && state.paused === null) {
      this.emptyInBatch.set(item.instance, state.n ?? 0);
      this.db.beforeCommit(this.forgetBatch);
    }
    return state;
  }

  /**
   * Writes an entry (leased until `leaseUntil`, or waiting) and, when it heads its lane, the lane's head.
   * With `undo` (see {@link SqliteDatabase.undoable}) it says how to take the entry out again.
   */
  private insert(item: NewOutbound, leaseUntil: number | null, head: boolean, undo?: Undo): void {
    this.emptyInBatch.delete(item.instance);
    const { seq } = this.db.write<{ seq: number }>(
      `INSERT INTO outbound (instance, id, lane, ord, due_at, created_at, payload, lease_until)
       VALUES (@instance, @id, @lane, @dueAt, @dueAt, @createdAt, @payload, @leaseUntil) RETURNING seq`,
      { instance: item.instance, id: item.id, lane: item.lane, dueAt: item.dueAt, createdAt: item.createdAt, payload: item.payload, leaseUntil },
    )!;
    undo?.(() => this.db.run('DELETE FROM outbound WHERE seq = +?', [seq]));
    // Nothing of the lane before it: it is the lane's new head (ready at its lease end while leased).
    if (head) this.setHead(item.instance, item.lane, seq, leaseUntil ?? item.dueAt);
  }

  /** Deletes an entry and moves its lane on; with `undo` (see {@link SqliteDatabase.undoable}) it says how to put the entry back. */
  private remove(instance: string, id: string, undo?: Undo): void {
    const row = this.db.write<OutboundRow>('DELETE FROM outbound WHERE instance = +? AND id = +? RETURNING *', [instance, id]);
    if (!row) return;
    undo?.(() => this.db.run(
      `INSERT INTO outbound (seq, instance, id, lane, ord, due_at, created_at, attempts, last_error, lease_until, payload)
       VALUES (@seq, @instance, @id, @lane, @ord, @due_at, @created_at, @attempts, @last_error, @lease_until, @payload)`, row));
    this.refreshLane(instance, row.lane);
    this.countBy(instance, -1);
  }

  private setHead(instance: string, lane: string, head: number, readyAt: number): void {
    this.db.run(
      `INSERT INTO outbound_lanes (instance, lane, head, ready_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (instance, lane) DO UPDATE SET head = excluded.head, ready_at = excluded.ready_at`,
      [instance, lane, head, readyAt],
    );
  }

  /**
   * Points the lane at its current head (its lease end while leased, else its due time) in one statement,
   * or drops an empty lane (the statement found no head).
   */
  private refreshLane(instance: string, lane: string): void {
    if (this.db.run(REFRESH_LANE, [instance, lane]) === 0) this.db.run('DELETE FROM outbound_lanes WHERE instance = +? AND lane = +?', [instance, lane]);
  }

  /** Queued sends of an instance: the stored count plus this batch's changes. */
  private size(instance: string): number {
    const stored = this.db.get<{ n: number }>('SELECT n FROM outbound_counts WHERE instance = +?', [instance])?.n ?? 0;
    return stored + (this.pendingCounts.get(instance) ?? 0);
  }

  private countBy(instance: string, delta: number): void {
    this.pendingCounts.set(instance, (this.pendingCounts.get(instance) ?? 0) + delta);
    this.db.beforeCommit(this.writeCounts);
  }
}
