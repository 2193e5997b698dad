import type { Queryable } from '../queryable.js';

/** How a queue's lanes are stored. Table and column names are constants of the queues, never input. */
export interface LaneSpec {
  /** The table of lane heads: (instance, <lane column>) → head seq and when it can next be claimed. */
  lanes: string;
  /** The queue's table. */
  rows: string;
  /** The column that, with `instance`, names a lane in both tables. */
  lane: string;
  /** `ORDER BY` of a lane's rows, head first (columns of alias `r`). */
  order: string;
  /** Condition of the rows that belong to their lane (alias `r`). */
  member: string;
  /** When the head can next be claimed (alias `r`). */
  readyAt: string;
}

/** One lane: an instance and the lane's name within it. */
export interface LaneKey {
  instance: string;
  lane: string;
}

/**
 * Lane bookkeeping shared by the delivery and outbound queues. Every transaction that changes which
 * rows a lane holds (or its head's times) first {@link lock}s the lane's head row, then changes rows,
 * then {@link refresh}es the head from the rows. The lock serializes writers of one lane, and the
 * refresh runs as a statement of its own after the lock, so under READ COMMITTED it sees every
 * committed change: a head never goes stale. Claims take head rows with FOR UPDATE SKIP LOCKED, so
 * they neither wait for these writers nor for each other, and lock a head row before its queue row,
 * as the writers do, so nothing deadlocks.
 */
export class Lanes {
  private readonly lockSql: string;
  private readonly refreshSql: string;

  constructor(spec: LaneSpec) {
    const { lanes, rows, lane, order, member, readyAt } = spec;
    // A lane without a head row gets a placeholder (head 0), which this transaction's refresh replaces or
    // deletes before anyone can see it. ORDER BY: every transaction locks lanes in the same order.
    this.lockSql = `INSERT INTO ${lanes} (instance, ${lane}, head, ready_at)
      SELECT instance, lane, 0, 0 FROM unnest($1::text[], $2::text[]) AS k (instance, lane) ORDER BY instance, lane
      ON CONFLICT (instance, ${lane}) DO UPDATE SET head = ${lanes}.head`;
    this.refreshSql = `WITH keys AS (SELECT * FROM unnest($1::text[], $2::text[]) AS k (instance, lane)),
      heads AS (
        SELECT k.instance, k.lane, h.seq, h.ready FROM keys AS k CROSS JOIN LATERAL (
          SELECT r.seq, ${readyAt} AS ready FROM ${rows} AS r
          WHERE r.instance = k.instance AND r.${lane} = k.lane AND ${member} ORDER BY ${order} LIMIT 1
        ) AS h
      ),
      moved AS (
        UPDATE ${lanes} AS l SET head = h.seq, ready_at = h.ready FROM heads AS h
        WHERE l.instance = h.instance AND l.${lane} = h.lane RETURNING 1
      )
      DELETE FROM ${lanes} AS l USING keys AS k
      WHERE l.instance = k.instance AND l.${lane} = k.lane AND NOT EXISTS (SELECT 1 FROM heads AS h WHERE h.instance = k.instance AND h.lane = k.lane)`;
  }

  /** Locks the head rows of `keys` for the transaction (creating placeholders for lanes without one). */
  async lock(tx: Queryable, keys: readonly LaneKey[]): Promise<void> {
    if (keys.length > 0) await tx.run(this.lockSql, columns(keys));
  }

  /** Points each of `keys` (locked by this transaction) at its current head, or drops it when empty. */
  async refresh(tx: Queryable, keys: readonly LaneKey[]): Promise<void> {
    if (keys.length > 0) await tx.run(this.refreshSql, columns(keys));
  }
}

/** Distinct lanes of `rows`. */
export function lanesOf(rows: readonly LaneKey[]): LaneKey[] {
  const seen = new Map<string, LaneKey>();
  for (const { instance, lane } of rows) seen.set(`${instance}\n${lane}`, { instance, lane });
  return [...seen.values()];
}

function columns(keys: readonly LaneKey[]): [string[], string[]] {
  return [keys.map((key) => key.instance), keys.map((key) => key.lane)];
}
