import type { ClusterStore, Lease, NodeInfo, NodeRecord } from '@parley/core';
import type { PgDatabase } from '../pg-database.js';

/** How long a move request stays (a target that never takes the instance does not pin it forever). */
const MOVE_TTL_MS = 60_000;

/** SQL: the expiry `ms` (a parameter reference such as `$2`) from now on the database's clock. */
const expiresIn = (ms: string) => `clock_timestamp() + ${ms}::double precision * interval '1 millisecond'`;

/** SQL: a row whose `expires_at` is still in the future on the database's clock. */
const LIVE = 'expires_at > clock_timestamp()';

/*
 * Leases by their (instance, token), given as unnest($n::text[], $m::bigint[]): each statement also names the
 * lease rows by `l.instance = ANY($n)`, a probe of the primary key per instance. Joined to the unnested pairs
 * alone, a plan made while `cluster_leases` was young hashed (renew) or scanned (release) every lease ever
 * taken, on every renewal tick of every node. The extra condition holds for every row the join keeps.
 */

/** Extends by $3 ms the leases of instances $1 still at tokens $2; answers the instances extended. */
export const RENEW = `UPDATE cluster_leases AS l SET expires_at = ${expiresIn('$3')} FROM unnest($1::text[], $2::bigint[]) AS r (instance, token)
  WHERE l.instance = ANY($1::text[]) AND l.instance = r.instance AND l.token = r.token RETURNING l.instance`;

/** Ends node $1's live leases of instances $2 at tokens $3, and offers those instances. */
export const RELEASE = `WITH released AS (
    UPDATE cluster_leases AS l SET expires_at = NULL, held_by = NULL FROM unnest($2::text[], $3::bigint[]) AS r (instance, token)
    WHERE l.instance = ANY($2::text[]) AND l.instance = r.instance AND l.token = r.token AND l.node = $1 AND l.${LIVE} RETURNING l.instance
  )
  INSERT INTO cluster_unowned (instance, offered_at) SELECT instance, clock_timestamp() FROM released ON CONFLICT (instance) DO NOTHING`;

/** `leases` as the parallel arrays of unnest($n::text[], $m::bigint[]). */
function columns(leases: Lease[]): [string[], number[]] {
  return [leases.map((l) => l.instance), leases.map((l) => l.token)];
}

/**
 * Cluster coordination on PostgreSQL (tables of migration 4, cluster-schema.ts): a lease is a row
 * whose expiry (database clock) is in the future; its fencing token comes from one sequence, drawn
 * in the UPDATE that takes the row (`cluster_acquire`), so tokens only grow; node entries are rows expiring with
 * the heartbeat's time to live. Every method is one statement (or one server-side function), so it
 * is atomic, and racing nodes are ordered by PostgreSQL's row locks. Errors reaching the server
 * surface as ServiceUnavailableError (PgDatabase).
 */
export class PgClusterStore implements ClusterStore {
  constructor(private readonly db: PgDatabase) {}

  join(node: NodeInfo, ttlMs: number): Promise<boolean> {
    return this.heartbeat(node, ttlMs, node.startedAt);
  }

  /** Writes the entry unless a live entry of the same id belongs to another incarnation. */
  async heartbeat(node: NodeInfo, ttlMs: number, now: number): Promise<boolean> {
    const written = await this.db.run(
      `INSERT INTO cluster_nodes (id, incarnation, info, last_heartbeat, expires_at) VALUES ($1, $2, $3, $4, ${expiresIn('$5')})
       ON CONFLICT (id) DO UPDATE SET incarnation = excluded.incarnation, info = excluded.info, last_heartbeat = excluded.last_heartbeat,
         expires_at = excluded.expires_at
       WHERE cluster_nodes.incarnation = excluded.incarnation OR cluster_nodes.expires_at <= clock_timestamp()`,
      [node.id, node.incarnation, JSON.stringify(node), now, ttlMs]);
    return written === 1;
  }

  async leave(node: NodeInfo): Promise<void> {
    await this.db.run('DELETE FROM cluster_nodes WHERE id = $1 AND incarnation = $2', [node.id, node.incarnation]);
  }

  /** The load is counted in the store (instances the node holds), not the node's last report: placement sees every lease at once. */
  async nodes(): Promise<NodeRecord[]> {
    const rows = await this.db.all<{ info: string; last_heartbeat: number; alive: boolean; load: number }>(
      `SELECT n.info, n.last_heartbeat, n.${LIVE} AS alive, (SELECT count(*) FROM cluster_leases AS l WHERE l.held_by = n.id) AS load
       FROM cluster_nodes AS n ORDER BY n.id`);
    return rows.map((row) => ({ ...(JSON.parse(row.info) as NodeInfo), lastHeartbeat: row.last_heartbeat, load: row.load, alive: row.alive }));
  }

  /**
   * One statement: the dead entry goes (only if expired and last heard of before `before`), its held
   * instances are offered, and claims and moves past their expiry are swept on the way (pruning is rare).
   */
  async prune(node: string, before: number): Promise<boolean> {
    const row = await this.db.get<{ pruned: number }>(
      `WITH gone AS (DELETE FROM cluster_nodes WHERE id = $1 AND expires_at <= clock_timestamp() AND last_heartbeat < $2 RETURNING id),
       orphans AS (UPDATE cluster_leases SET held_by = NULL WHERE held_by = $1 AND EXISTS (SELECT 1 FROM gone) RETURNING instance),
       offered AS (INSERT INTO cluster_unowned (instance, offered_at) SELECT instance, clock_timestamp() FROM orphans ON CONFLICT (instance) DO NOTHING),
       claims AS (DELETE FROM cluster_claims WHERE expires_at <= clock_timestamp()),
       moves AS (DELETE FROM cluster_moves WHERE expires_at <= clock_timestamp())
       SELECT count(*) AS pruned FROM gone`, [node, before]);
    return (row?.pruned ?? 0) > 0;
  }

  async acquire(instance: string, node: string, ttlMs: number, options: { honourMove?: boolean } = {}): Promise<Lease | null> {
    const row = await this.db.get<{ token: number | null }>('SELECT cluster_acquire($1, $2, $3, $4) AS token', [instance, node, ttlMs, options.honourMove !== false]);
    return row?.token ? { instance, node, token: row.token } : null;
  }

  /** Extends leases still at the same token, and sets again one that ended with nobody taking it since (its token still current). */
  async renew(leases: Lease[], ttlMs: number): Promise<string[]> {
    if (leases.length === 0) return [];
    const [instances, tokens] = columns(leases);
    const kept = await this.db.all<{ instance: string }>(RENEW, [instances, tokens, ttlMs]);
    const renewed = new Set(kept.map((row) => row.instance));
    return instances.filter((id) => !renewed.has(id));
  }

  async release(leases: Lease[]): Promise<void> {
    if (leases.length === 0) return;
    const [instances, tokens] = columns(leases);
    await this.db.run(RELEASE, [leases[0]!.node, instances, tokens]);
  }

  async owners(instances: string[]): Promise<Map<string, Lease>> {
    if (instances.length === 0) return new Map();
    const rows = await this.db.all<{ instance: string; node: string; token: number }>(
      `SELECT instance, node, token FROM cluster_leases WHERE instance = ANY($1::text[]) AND ${LIVE}`, [instances]);
    return new Map(rows.map((row) => [row.instance, { instance: row.instance, node: row.node, token: row.token }]));
  }

  async heldBy(node: string): Promise<string[]> {
    return (await this.db.all<{ instance: string }>('SELECT instance FROM cluster_leases WHERE held_by = $1 ORDER BY instance', [node])).map((row) => row.instance);
  }

  async unowned(limit: number): Promise<string[]> {
    return (await this.db.all<{ instance: string }>('SELECT instance FROM cluster_unowned ORDER BY offered_at, instance LIMIT $1', [limit]))
      .map((row) => row.instance);
  }

  async offer(instances: string[]): Promise<void> {
    if (instances.length === 0) return;
    await this.db.run(
      'INSERT INTO cluster_unowned (instance, offered_at) SELECT DISTINCT i, clock_timestamp() FROM unnest($1::text[]) AS i ON CONFLICT (instance) DO NOTHING',
      [instances]);
  }

  async requestMove(instance: string, node: string): Promise<void> {
    await this.db.run(
      `INSERT INTO cluster_moves (instance, node, expires_at) VALUES ($1, $2, ${expiresIn('$3')})
       ON CONFLICT (instance) DO UPDATE SET node = excluded.node, expires_at = excluded.expires_at`, [instance, node, MOVE_TTL_MS]);
  }

  async movesFor(instances: string[]): Promise<Map<string, string>> {
    if (instances.length === 0) return new Map();
    const rows = await this.db.all<{ instance: string; node: string }>(
      `SELECT instance, node FROM cluster_moves WHERE instance = ANY($1::text[]) AND ${LIVE}`, [instances]);
    return new Map(rows.map((row) => [row.instance, row.node]));
  }

  async moveTarget(instance: string): Promise<string | undefined> {
    return (await this.movesFor([instance])).get(instance);
  }

  /** The lease ends and the instance leaves every list; its row keeps the last token, so a write fenced with an older one stays refused. */
  async forget(instance: string): Promise<void> {
    await this.db.run(
      `WITH lease AS (UPDATE cluster_leases SET expires_at = NULL, held_by = NULL WHERE instance = $1),
       move AS (DELETE FROM cluster_moves WHERE instance = $1)
       DELETE FROM cluster_unowned WHERE instance = $1`, [instance]);
  }

  /** An insert, or the take-over of an expired claim; a racing caller waits on the row and then finds it claimed. */
  async firstToClaim(key: string, ttlMs: number): Promise<boolean> {
    const claimed = await this.db.run(
      `INSERT INTO cluster_claims (key, expires_at) VALUES ($1, ${expiresIn('$2')})
       ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE cluster_claims.expires_at <= clock_timestamp()`, [key, ttlMs]);
    return claimed === 1;
  }
}
