import type { RateLimitCounter, RateLimitOptions } from '@parley/core';
import type { PgDatabase } from '../pg-database.js';

/** Rows of windows ended longer ago than this are deleted, at most this many by one hit. */
const SWEEP_AFTER = "interval '1 minute'";
const SWEEP_BATCH = 100;

/**
 * One hit of key $2 of limiter $1 ($3 points per $4 s, blocked $5 s once over). The sweep takes the oldest
 * windows ended before a cutoff computed once (a scalar subquery: `clock_timestamp()` compared row by row is
 * no index condition), along `rate_limits_by_end`, each deleted by its address found by its key (LATERAL …
 * LIMIT 1). As `ctid = ANY(ARRAY(SELECT ctid … LIMIT 100))`, a plan made while the table was young read the
 * whole table twice per hit: once for the rows to sweep (none, mostly), once for their addresses.
 */
export const HIT = `WITH swept AS (
    DELETE FROM rate_limits AS s USING (
      SELECT name, key FROM rate_limits WHERE window_end < (SELECT clock_timestamp() - ${SWEEP_AFTER}) ORDER BY window_end LIMIT ${SWEEP_BATCH}
    ) AS o CROSS JOIN LATERAL (SELECT ctid AS addr FROM rate_limits WHERE name = o.name AND key = o.key LIMIT 1) AS k
    WHERE s.ctid = k.addr
  ),
  counted AS (
    INSERT INTO rate_limits AS r (name, key, points, window_end) VALUES ($1, $2, 1, clock_timestamp() + $4::double precision * interval '1 second')
    ON CONFLICT (name, key) DO UPDATE SET
      points = CASE WHEN r.window_end <= clock_timestamp() THEN 1 ELSE r.points + 1 END,
      window_end = CASE
        WHEN r.window_end <= clock_timestamp() THEN excluded.window_end
        WHEN r.points = $3 AND $5 > 0 THEN clock_timestamp() + $5::double precision * interval '1 second'
        ELSE r.window_end END
    RETURNING points, window_end
  )
  SELECT CASE WHEN points > $3 THEN greatest(1, ceil(extract(epoch FROM window_end - clock_timestamp()) * 1000)) ELSE 0 END::bigint AS blocked_ms
  FROM counted`;

/**
 * A {@link RateLimitCounter} on the `rate_limits` table, shared by every server on the schema: one
 * statement per hit counts the event in the key's current window (a new window once it ended) and,
 * when the count first goes over `points`, extends the window to the end of the block. Answers the
 * milliseconds left of the window while over the limit, else 0 — what rate-limiter-flexible's
 * `consume` answers on Redis. Times are the database's clock. A hit also deletes a few rows of windows
 * long ended, so the table holds about the keys of the last minute.
 */
export class PgRateLimiter implements RateLimitCounter {
  constructor(private readonly db: PgDatabase, private readonly options: RateLimitOptions) {}

  async hit(key: string): Promise<number> {
    const { name, points, durationSeconds, blockSeconds } = this.options;
    const row = await this.db.get<{ blocked_ms: number }>(HIT, [name, key, points, durationSeconds, blockSeconds]);
    return row?.blocked_ms ?? 0;
  }
}
