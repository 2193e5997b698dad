/**
 * The coordination a cluster of Parley nodes needs from its shared store (docs/cluster.md): a
 * registry of live nodes, and one lease per instance carrying a fencing token. Implemented by storage
 * back ends that several servers can share (Redis, PostgreSQL); a back end without it cannot run a cluster.
 */

/** What a node publishes about itself; refreshed by every heartbeat. */
export interface NodeInfo {
  id: string;
  /** Base URL other nodes forward requests to. */
  address: string;
  /** Unique per process start: tells this node from another process claiming the same id. */
  incarnation: string;
  /** When the process started (ms since the epoch). */
  startedAt: number;
  /** Leases held. */
  load: number;
  /** A draining node takes no instance and hands its own over. */
  draining: boolean;
}

/** A node as the registry answers it. */
export interface NodeRecord extends NodeInfo {
  /** When the node last refreshed its entry (ms, the node's clock). */
  lastHeartbeat: number;
  /** False once the entry outlived its time to live without a heartbeat (the node is gone). */
  alive: boolean;
}

/** A held lease: which node holds an instance, and the fencing token it got with it. */
export interface Lease {
  instance: string;
  node: string;
  /** Strictly greater than the token of every earlier lease of any instance. */
  token: number;
}

/**
 * A fencing token attached to a write: the store applies the write only if `token` is still the
 * instance's current token (no other node took the instance since), atomically with the write, and
 * throws {@link FencedOffError} otherwise.
 */
export interface Fence {
  instance: string;
  token: number;
}

/** Cluster coordination in a shared store. Every method throws ServiceUnavailableError when the store is unreachable. */
export interface ClusterStore {
  /**
   * Registers the node for `ttlMs`. Answers false, writing nothing, when a live entry with the same id
   * belongs to another incarnation (another process uses this node id).
   */
  join(node: NodeInfo, ttlMs: number): Promise<boolean>;
  /** Refreshes the node's entry; false when the entry now belongs to another incarnation. */
  heartbeat(node: NodeInfo, ttlMs: number, now: number): Promise<boolean>;
  /** Removes the node's entry (only its own incarnation's). */
  leave(node: NodeInfo): Promise<void>;
  /** Every node entry, live or recently gone, by id. */
  nodes(): Promise<NodeRecord[]>;
  /**
   * Forgets a dead node whose last heartbeat is older than `before` (ms): its registry entry goes, and
   * the instances still recorded as held by it are offered (so they stay findable as orphans). Does
   * nothing when the node is alive again or heartbeated since. Answers whether it was pruned.
   */
  prune(node: string, before: number): Promise<boolean>;
  /**
   * Takes the lease of an instance for `ttlMs` when nobody holds it (SET NX PX), with a new fencing
   * token; answers null when another node holds it, or when a move to another node is pending and
   * `honourMove` is not false (a move to a node that died is overridden with `honourMove: false`).
   */
  acquire(instance: string, node: string, ttlMs: number, options?: { honourMove?: boolean }): Promise<Lease | null>;
  /** Extends held leases; answers the instances whose lease this node no longer holds (taken or expired and re-taken). */
  renew(leases: Lease[], ttlMs: number): Promise<string[]>;
  /** Gives leases up (only those still held with the same token) so another node can take them at once. */
  release(leases: Lease[]): Promise<void>;
  /** The current holder of each instance's lease (missing: nobody holds it). */
  owners(instances: string[]): Promise<Map<string, Lease>>;
  /** Instances recorded as held by `node` (its last known set, kept after it died so others find its orphans). */
  heldBy(node: string): Promise<string[]>;
  /** Instances waiting for an owner (added by {@link offer}), oldest first. */
  unowned(limit: number): Promise<string[]>;
  /** Records instances as waiting for an owner (no lease); idempotent. */
  offer(instances: string[]): Promise<void>;
  /** Asks `node` to take `instance` next (a move or a drain); the current owner then releases it. */
  requestMove(instance: string, node: string): Promise<void>;
  /** Moves requested for instances this node holds: instance → target node. */
  movesFor(instances: string[]): Promise<Map<string, string>>;
  /** The node a move asked to take `instance`, if any. */
  moveTarget(instance: string): Promise<string | undefined>;
  /** Forgets an instance entirely (deleted): lease, holder record, pending move. */
  forget(instance: string): Promise<void>;
  /**
   * Answers true to the first caller for `key` within `ttlMs`, cluster-wide, and false to every other
   * (SET NX PX): what several nodes notice at once (a node that died) is announced by one of them.
   */
  firstToClaim(key: string, ttlMs: number): Promise<boolean>;
}
