import {
  webhookStatsOf, type Clock, type DeadLetter, type Delivery, type DeliveryCounters, type DeliveryFailure, type DeliveryOutcome,
  type DeliveryQueue, type LoggedEvent, type NewDelivery, type WebhookStats,
} from '@parley/core';
import { deliveryOf, type DeliveryRow } from '@parley/storage-sql';
import type { PgDatabase, Queryable } from '../pg-database.js';
import type { PgEventLog } from './event-log.pg.js';
import { Lanes, lanesOf, type LaneKey } from './lanes.pg.js';

/** A lane of the delivery queue is an instance and a url. */
const LANES = new Lanes({
  lanes: 'delivery_lanes', rows: 'deliveries', lane: 'url', order: 'r.seq', member: 'r.dead_at IS NULL',
  readyAt: 'GREATEST(r.next_attempt_at, coalesce(r.lease_until, 0))',
});

/**
 * Leases up to $2 due lane heads at $1 until $3, in one statement (its own transaction): the head rows
 * are taken FOR UPDATE SKIP LOCKED, so concurrent claimers (other nodes) take different lanes without
 * waiting, and a lane being written is skipped rather than waited for.
 */
const CLAIM = `
  WITH picked AS (
    SELECT instance, url FROM delivery_lanes WHERE ready_at <= $1 ORDER BY ready_at, head LIMIT $2 FOR UPDATE SKIP LOCKED
  ),
  leased AS (
    UPDATE delivery_lanes AS l SET ready_at = $3 FROM picked AS p WHERE l.instance = p.instance AND l.url = p.url RETURNING l.head
  )
  UPDATE deliveries AS d SET lease_until = $3 FROM leased WHERE d.seq = leased.head RETURNING d.*`;

/**
 * The deliveries that follow each head of $1 in its lane, at most $2 each (they ride on the head's lease). Each
 * head is read by its seq (LATERAL … LIMIT 1): joined to the unnested seqs, a plan made on a young table hashed
 * the whole queue.
 */
export const FOLLOWERS = `
  SELECT f.* FROM unnest($1::bigint[]) AS h (seq)
  CROSS JOIN LATERAL (SELECT instance, url FROM deliveries WHERE seq = h.seq LIMIT 1) AS hd
  CROSS JOIN LATERAL (
    SELECT * FROM deliveries AS d WHERE d.instance = hd.instance AND d.url = hd.url AND d.dead_at IS NULL AND d.seq > h.seq
    ORDER BY d.seq LIMIT $2
  ) AS f ORDER BY f.seq`;

/**
 * The live delivery $1: found by its id, then by its seq. Beside the id, `dead_at IS NULL` matches the predicate
 * of `deliveries_lanes`, which a plan made on a young table chose, reading every live delivery for one.
 */
const LIVE_BY_ID = 'seq = (SELECT seq FROM deliveries WHERE id = $1) AND dead_at IS NULL';
/** A sent delivery $1 leaves the queue. */
export const DELIVERED = `DELETE FROM deliveries WHERE ${LIVE_BY_ID} RETURNING instance`;
/** A delivery $1 that was neither sent nor failed gives its lease back. */
export const RELEASED = `UPDATE deliveries SET lease_until = NULL WHERE ${LIVE_BY_ID}`;
/** A failed attempt of delivery $1: retried at $2, or (no $2) dead since $5; $3 the error, $4 the status. */
export const FAILED = `UPDATE deliveries SET attempts = attempts + 1, next_attempt_at = coalesce($2, next_attempt_at), last_error = $3,
  last_status = $4, lease_until = NULL, dead_at = CASE WHEN $2::bigint IS NULL THEN $5::bigint END
  WHERE ${LIVE_BY_ID} RETURNING instance`;
/** The lanes of the live deliveries $1, each delivery read by its id (LATERAL … LIMIT 1), as {@link LIVE_BY_ID}. */
export const LIVE_LANES = `SELECT DISTINCT d.instance, d.url FROM unnest($1::text[]) AS k (id)
  CROSS JOIN LATERAL (SELECT instance, url, dead_at FROM deliveries WHERE id = k.id LIMIT 1) AS d WHERE d.dead_at IS NULL`;

/**
 * Dead letters $2 of instance $1, each found by its id alone (LATERAL … LIMIT 1: the instance and `dead_at`
 * checked on what it found, outside the LIMIT, so no index of theirs is taken) and deleted by its address: with
 * `instance = $1 AND dead_at IS NOT NULL AND id = ANY($2)`, a plan made on a young table read the instance's
 * every dead letter along `deliveries_dead` and filtered them by the ids. A dead letter changed meanwhile (moved
 * back to the queue) is kept, as the check of `dead_at` on its new version keeps it in the statement it replaces.
 */
export const DISCARD_DEAD = `DELETE FROM deliveries AS d USING unnest($2::text[]) AS k (id)
  CROSS JOIN LATERAL (SELECT ctid AS addr, instance, dead_at FROM deliveries WHERE id = k.id LIMIT 1) AS f
  WHERE d.ctid = f.addr AND f.instance = $1 AND f.dead_at IS NOT NULL`;

/**
 * Dead letters dead before $1: a range of `deliveries_dead_age` bounded on both sides (the lower bound the
 * first dead letter's time, which every one has or follows). With the upper bound alone a plan made on a
 * young table scanned the whole queue per purge, as the event log's did (`PURGE_EVENTS`).
 */
export const PURGE_DEAD = `DELETE FROM deliveries WHERE dead_at IS NOT NULL
  AND dead_at >= (SELECT min(dead_at) FROM deliveries WHERE dead_at IS NOT NULL) AND dead_at < $1`;

/** Counter increments of one instance. */
type Counts = { sent: number; failed: number; sum: number; responses: number };

/**
 * The durable delivery queue. Each non-empty lane's head is a row of `delivery_lanes`, kept by {@link Lanes}
 * in the transactions that change the lane; statistics are counters in `delivery_stats`, written in the
 * same transaction as the outcomes they count. Every method resolves after its transaction committed.
 */
export class PgDeliveryQueue implements DeliveryQueue {
  constructor(private readonly db: PgDatabase, private readonly log: PgEventLog, private readonly clock: Clock) {}

  /**
   * One call of the `delivery_enqueue` function (migration 3): the event-log entries and the deliveries in
   * one transaction, so both commit together.
   */
  async enqueue(deliveries: NewDelivery[], events: LoggedEvent[] = []): Promise<void> {
    if (deliveries.length === 0) return this.log.append(events);
    // An entry of these events appended behind lands first (the first write of an id is the one kept).
    await this.db.writtenBehindOf(events.map((e) => e.id));
    // Durable on its own (DeliveryQueue.enqueue), also when the sessions' synchronousCommit is off.
    await this.db.run("SELECT set_config('synchronous_commit', 'on', true), delivery_enqueue($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)", [
      events.map((e) => e.id), events.map((e) => e.instance), events.map((e) => e.type), events.map((e) => e.at), events.map((e) => e.event),
      deliveries.map((d) => d.id), deliveries.map((d) => d.instance), deliveries.map((d) => d.url), deliveries.map((d) => d.format),
      deliveries.map((d) => d.eventId), deliveries.map((d) => d.eventType), deliveries.map((d) => d.body), deliveries.map((d) => d.createdAt),
    ]);
  }

  async claim({ now, limit, leaseMs, perLane = 1 }: { now: number; limit: number; leaseMs: number; perLane?: number }): Promise<Delivery[]> {
    if (limit <= 0) return [];
    const heads = (await this.db.all<DeliveryRow>(CLAIM, [now, limit, now + leaseMs]))
      .sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.seq - b.seq);
    if (perLane <= 1 || heads.length === 0) return heads.map(deliveryOf);
    const followers = await this.db.all<DeliveryRow>(FOLLOWERS, [heads.map((head) => head.seq), perLane - 1]);
    const claimed: Delivery[] = [];
    for (const head of heads) {
      claimed.push(deliveryOf(head));
      for (const row of followers) {
        if (row.instance !== head.instance || row.url !== head.url) continue;
        if (row.next_attempt_at > now) break;
        claimed.push(deliveryOf(row));
      }
    }
    return claimed;
  }

  async ack(id: string, result: { responseTimeMs: number; status: number }): Promise<void> {
    await this.complete([{ id, outcome: 'sent', ...result }]);
  }

  async fail(id: string, failure: DeliveryFailure): Promise<void> {
    await this.complete([{ id, outcome: 'failed', failure }]);
  }

  /** One transaction: the lanes' head rows locked, the outcomes applied, counted and the heads moved on. */
  async complete(outcomes: DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const now = this.clock.now();
    await this.db.transaction(async (tx) => {
      const lanes = await this.lanesOf(tx, LIVE_LANES, [outcomes.map((outcome) => outcome.id)]);
      await LANES.lock(tx, lanes);
      const counts = new Map<string, Counts>();
      const count = (instance: string, sent: number, responseTimeMs: number | undefined): void => {
        let c = counts.get(instance);
        if (!c) counts.set(instance, (c = { sent: 0, failed: 0, sum: 0, responses: 0 }));
        c.sent += sent;
        c.failed += 1 - sent;
        if (responseTimeMs !== undefined) {
          c.sum += responseTimeMs;
          c.responses += 1;
        }
      };
      for (const outcome of outcomes) {
        if (outcome.outcome === 'sent') {
          const row = await tx.get<{ instance: string }>(DELIVERED, [outcome.id]);
          if (row) count(row.instance, 1, outcome.responseTimeMs);
        } else if (outcome.outcome === 'failed') {
          const row = await this.failAttempt(tx, outcome.id, outcome.failure, now);
          if (row) count(row.instance, 0, outcome.failure.responseTimeMs);
        } else {
          await tx.run(RELEASED, [outcome.id]);
        }
      }
      await writeCounts(tx, counts);
      await LANES.refresh(tx, lanes);
    });
  }

  private failAttempt(tx: Queryable, id: string, failure: DeliveryFailure, now: number): Promise<{ instance: string } | undefined> {
    return tx.get<{ instance: string }>(FAILED, [id, failure.nextAttemptAt, failure.error, failure.status ?? null, now]);
  }

  /** Makes the target's postponed, unleased lane heads due now; a scan of the lanes, run when a target comes back. */
  async expedite(url: string, now: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const lanes = (await tx.all<{ instance: string }>('SELECT instance FROM delivery_lanes WHERE url = $1', [url]))
        .map((row) => ({ instance: row.instance, lane: url }));
      await LANES.lock(tx, lanes);
      const moved = await tx.run(
        `UPDATE deliveries AS d SET next_attempt_at = $2 FROM delivery_lanes AS l
         WHERE l.url = $1 AND d.seq = l.head AND d.next_attempt_at > $2 AND (d.lease_until IS NULL OR d.lease_until <= $2)`,
        [url, now],
      );
      await LANES.refresh(tx, lanes);
      return moved;
    });
  }

  /** The earliest head: an index read of `delivery_lanes_ready`. */
  async nextDueAt(): Promise<number | null> {
    return (await this.db.get<{ due: number | null }>('SELECT min(ready_at) AS due FROM delivery_lanes'))?.due ?? null;
  }

  async deadLetters(instance: string, page: { limit: number; offset: number }): Promise<{ items: DeadLetter[]; total: number }> {
    // The page and the total in one statement: one snapshot, so they agree.
    const rows = await this.db.all<DeliveryRow & { list_total: number }>(
      `SELECT c.n AS list_total, d.* FROM (SELECT count(*) AS n FROM deliveries WHERE instance = $1 AND dead_at IS NOT NULL) c
        LEFT JOIN LATERAL (SELECT * FROM deliveries WHERE instance = $1 AND dead_at IS NOT NULL ORDER BY dead_at, seq LIMIT $2 OFFSET $3) d ON true
        ORDER BY d.dead_at, d.seq`,
      [instance, page.limit, page.offset],
    );
    const items = rows.filter((row) => row.id !== null).map((row) => ({ ...deliveryOf(row), deadAt: row.dead_at! }));
    return { items, total: rows[0]?.list_total ?? 0 };
  }

  /** Revived deliveries rejoin their lanes at their old place (seq), so their lanes' heads are recomputed. */
  async redeliver(instance: string, ids?: string[]): Promise<number> {
    const which = ids === undefined ? 'instance = $1 AND dead_at IS NOT NULL' : 'instance = $1 AND dead_at IS NOT NULL AND id = ANY($2::text[])';
    const params = ids === undefined ? [instance] : [instance, ids];
    const now = this.clock.now();
    return this.db.transaction(async (tx) => {
      const lanes = await this.lanesOf(tx, `SELECT DISTINCT instance, url FROM deliveries WHERE ${which}`, params);
      await LANES.lock(tx, lanes);
      const revived = await tx.run(
        `UPDATE deliveries SET dead_at = NULL, lease_until = NULL, attempts = 0, next_attempt_at = $${params.length + 1} WHERE ${which}`,
        [...params, now],
      );
      await LANES.refresh(tx, lanes);
      return revived;
    });
  }

  async discardDeadLetters(instance: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    // Dead letters are in no lane (lanes hold live deliveries only): deleting them moves no head.
    return this.db.run(DISCARD_DEAD, [instance, ids]);
  }

  async purgeDeadLetters(before: number): Promise<number> {
    return this.db.run(PURGE_DEAD, [before]);
  }

  async stats(instance: string): Promise<WebhookStats> {
    const [counters, pending] = await Promise.all([
      // Required<…>: a mapped type, so the row type has the index signature db.get asks for.
      this.db.get<Required<DeliveryCounters>>(
        'SELECT total_sent AS sent, total_failed AS failed, response_time_sum AS "responseTimeSum", responses FROM delivery_stats WHERE instance = $1',
        [instance],
      ),
      this.db.get<{ n: number }>('SELECT count(*) AS n FROM deliveries WHERE instance = $1 AND dead_at IS NULL', [instance]),
    ]);
    return webhookStatsOf(counters, pending?.n ?? 0);
  }

  async clear(instance: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run('SELECT 1 FROM delivery_lanes WHERE instance = $1 ORDER BY url FOR UPDATE', [instance]);
      await tx.run('DELETE FROM deliveries WHERE instance = $1', [instance]);
      await tx.run('DELETE FROM delivery_lanes WHERE instance = $1', [instance]);
      await tx.run('DELETE FROM delivery_stats WHERE instance = $1', [instance]);
    });
  }

  /** The lanes (instance, url) that `sql` answers. */
  private async lanesOf(tx: Queryable, sql: string, params: unknown[]): Promise<LaneKey[]> {
    return (await tx.all<{ instance: string; url: string }>(sql, params))
      .map((row) => ({ instance: row.instance, lane: row.url }));
  }
}

/** Adds a transaction's counts to `delivery_stats`, one statement for every instance. */
async function writeCounts(tx: Queryable, counts: Map<string, Counts>): Promise<void> {
  if (counts.size === 0) return;
  const rows = [...counts];
  await tx.run(
    `INSERT INTO delivery_stats (instance, total_sent, total_failed, response_time_sum, responses)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::double precision[], $5::bigint[]) ORDER BY 1
     ON CONFLICT (instance) DO UPDATE SET total_sent = delivery_stats.total_sent + excluded.total_sent,
       total_failed = delivery_stats.total_failed + excluded.total_failed,
       response_time_sum = delivery_stats.response_time_sum + excluded.response_time_sum, responses = delivery_stats.responses + excluded.responses`,
    [rows.map(([i]) => i), rows.map(([, c]) => c.sent), rows.map(([, c]) => c.failed), rows.map(([, c]) => c.sum), rows.map(([, c]) => c.responses)],
  );
}
