import { ServiceUnavailableError, type Clock, type ClusterStore, type Lease, type NodeInfo, type NodeRecord } from '@parley/core';
import type { RedisConnection } from '../redis-connection.js';
import type { ClusterKeys } from './cluster-keys.js';
import { acquireScript, forgetScript, joinScript, leaveScript, pruneScript, releaseScript, renewScript } from './cluster.scripts.js';

/** How long a move request stays (a target that never takes the instance does not pin it forever). */
const MOVE_TTL_MS = 60_000;

function parseLease(instance: string, value: string | null | undefined): Lease | undefined {
  if (!value) return undefined;
  const bar = value.lastIndexOf('|');
  return { instance, node: value.slice(0, bar), token: Number(value.slice(bar + 1)) };
}

function pairs(leases: Lease[]): string[] {
  return leases.flatMap((l) => [l.instance, String(l.token)]);
}

/** Leases are renewed and released in batches of this many per script call. */
const BATCH = 500;

/**
 * Cluster coordination on Redis (the pattern of the Redis documentation's distributed locks, single
 * instance): leases are `SET NX PX` keys holding `<node>|<token>`, the token comes from one `INCR`
 * counter so it only grows, and renew/release are scripts that check ownership before they touch a
 * lease. Node entries are JSON keys expiring with the heartbeat's time to live.
 */
export class RedisClusterStore implements ClusterStore {
  constructor(private readonly connection: RedisConnection, private readonly keys: ClusterKeys, private readonly clock: Clock) {}

  async join(node: NodeInfo, ttlMs: number): Promise<boolean> {
    return this.heartbeat(node, ttlMs, node.startedAt);
  }

  async heartbeat(node: NodeInfo, ttlMs: number, now: number): Promise<boolean> {
    const json = JSON.stringify({ ...node, lastHeartbeat: now });
    const reply = await this.connection.run((c) =>
      joinScript.run(c, [this.keys.node(node.id), this.keys.nodeLast(node.id), this.keys.nodes], [node.id, node.incarnation, json, ttlMs]));
    return Number(reply) === 1;
  }

  async leave(node: NodeInfo): Promise<void> {
    await this.connection.run((c) => leaveScript.run(c, [this.keys.node(node.id), this.keys.nodeLast(node.id), this.keys.nodes], [node.id, node.incarnation]));
  }

  async nodes(): Promise<NodeRecord[]> {
    const ids = (await this.connection.run((c) => c.sMembers(this.keys.nodes))).sort();
    if (ids.length === 0) return [];
    const [live, last, held] = await this.connection.run((c) => Promise.all([
      c.mGet(ids.map((id) => this.keys.node(id))), c.mGet(ids.map((id) => this.keys.nodeLast(id))),
      Promise.all(ids.map((id) => c.sCard(this.keys.held(id)))),
    ]));
    const out: NodeRecord[] = [];
    ids.forEach((id, i) => {
      const text = live[i] ?? last[i];
      if (!text) return;
      // The load is counted in Redis (instances the node holds), not the node's last report: placement sees every lease at once.
      out.push({ ...(JSON.parse(text) as Omit<NodeRecord, 'alive'>), load: held[i]!, alive: live[i] != null });
    });
    return out;
  }

  async prune(node: string, before: number): Promise<boolean> {
    const k = this.keys;
    const reply = await this.connection.run((c) =>
      pruneScript.run(c, [k.node(node), k.nodeLast(node), k.nodes, k.held(node), k.unowned], [node, before, this.clock.now()]));
    return Number(reply) === 1;
  }

  async acquire(instance: string, node: string, ttlMs: number, options: { honourMove?: boolean } = {}): Promise<Lease | null> {
    const k = this.keys;
    const seed = this.clock.now();
    const token = Number(await this.connection.run((c) => acquireScript.run(c,
      [k.lease(instance), k.fence(instance), k.fenceSeq, k.holder, k.unowned, k.move(instance)], [k.stem, instance, node, ttlMs, seed, options.honourMove === false ? 0 : 1])));
    if (token <= 0) return null;
    const lease = { instance, node, token };
    // With replicas to confirm writes (Sentinel), a token a failover could forget is never used: the
    // next lease's token must be greater than every earlier one, on the new master too.
    if (!await this.connection.replicated()) {
      await this.release([lease]).catch(() => undefined);
      throw new ServiceUnavailableError(`lease of ${instance} not confirmed by the redis replicas; not taken`);
    }
    return lease;
  }

  async renew(leases: Lease[], ttlMs: number): Promise<string[]> {
    const lost: string[] = [];
    for (let i = 0; i < leases.length; i += BATCH) {
      const batch = leases.slice(i, i + BATCH);
      const node = batch[0]!.node;
      const reply = await this.connection.run((c) => renewScript.run(c, [], [this.keys.stem, node, ttlMs, ...pairs(batch)]));
      lost.push(...(reply as string[]));
    }
    return lost;
  }

  async release(leases: Lease[]): Promise<void> {
    for (let i = 0; i < leases.length; i += BATCH) {
      const batch = leases.slice(i, i + BATCH);
      await this.connection.run((c) => releaseScript.run(c, [], [this.keys.stem, batch[0]!.node, this.clock.now(), ...pairs(batch)]));
    }
  }

  async owners(instances: string[]): Promise<Map<string, Lease>> {
    const out = new Map<string, Lease>();
    if (instances.length === 0) return out;
    const values = await this.connection.run((c) => c.mGet(instances.map((id) => this.keys.lease(id))));
    instances.forEach((id, i) => {
      const lease = parseLease(id, values[i]);
      if (lease) out.set(id, lease);
    });
    return out;
  }

  heldBy(node: string): Promise<string[]> {
    return this.connection.run((c) => c.sMembers(this.keys.held(node)));
  }

  unowned(limit: number): Promise<string[]> {
    return this.connection.run((c) => c.zRange(this.keys.unowned, 0, limit - 1));
  }

  async offer(instances: string[]): Promise<void> {
    if (instances.length === 0) return;
    const now = this.clock.now();
    await this.connection.run((c) => c.zAdd(this.keys.unowned, instances.map((value) => ({ score: now, value })), { NX: true }));
  }

  async requestMove(instance: string, node: string): Promise<void> {
    await this.connection.run((c) => c.set(this.keys.move(instance), node, { PX: MOVE_TTL_MS }));
  }

  async movesFor(instances: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (instances.length === 0) return out;
    const values = await this.connection.run((c) => c.mGet(instances.map((id) => this.keys.move(id))));
    instances.forEach((id, i) => {
      if (values[i]) out.set(id, values[i]!);
    });
    return out;
  }

  async firstToClaim(key: string, ttlMs: number): Promise<boolean> {
    return (await this.connection.run((c) => c.set(this.keys.once(key), '1', { NX: true, PX: ttlMs }))) === 'OK';
  }

  async moveTarget(instance: string): Promise<string | undefined> {
    return (await this.connection.run((c) => c.get(this.keys.move(instance)))) ?? undefined;
  }

  async forget(instance: string): Promise<void> {
    const k = this.keys;
    await this.connection.run((c) => forgetScript.run(c, [k.lease(instance), k.holder, k.unowned, k.move(instance)], [k.stem, instance]));
  }
}
