import type { Clock, ClusterStore, Logger, NodeInfo, NodeRecord, StorageSignals } from '@parley/core';
import type { StreamHub } from '../streams/stream-hub.js';

/** The storage signal topic on which node events go to every node's admin streams. */
const NODE_EVENTS_TOPIC = 'cluster.nodes';

/**
 * What the admin stream tells of the cluster's nodes (docs/cluster.md, *Node events*): a node started
 * serving (`joined`), stopped gracefully (`left`), or stopped heartbeating (`dead`: killed, crashed, cut off).
 */
export const NODE_EVENT_KINDS = ['cluster.node.joined', 'cluster.node.left', 'cluster.node.dead'] as const;
export type NodeEventKind = (typeof NODE_EVENT_KINDS)[number];

/** One node event: the signal between nodes, and (without `kind`) the `data` of its admin stream frame. */
interface NodeEventSignal {
  kind: NodeEventKind;
  node: string;
  address: string;
  /** When it was announced (ms since the epoch). */
  at: number;
  /** `dead`: the node's last heartbeat (its clock). */
  lastHeartbeat?: number;
}

/** What the node events need. */
export interface NodeEventsDeps {
  signals: StorageSignals;
  store: Pick<ClusterStore, 'firstToClaim'>;
  hub: Pick<StreamHub, 'noticeAdmin'>;
  clock: Clock;
  logger: Logger;
  /** How long the claim to announce a node's death is kept (longer than a dead node stays listed). */
  claimTtlMs: number;
}

/**
 * Tells every node's admin streams of nodes that join, leave or die, once cluster-wide: a node
 * announces its own leaving; a node registering or dying, which every live node notices in the
 * registry, is announced by the first node to claim it in the store. Announcements are storage signals (at most once: a node that
 * misses one, its link to the store lost, ends its admin streams and their clients reload).
 */
export class NodeEvents {
  /** Deaths seen by this node (each announced by some node). */
  private readonly seenDead = new Set<string>();
  /** Live processes (`<node>/<incarnation>`) this node has seen; unset before its first read. */
  private seenAlive?: Set<string>;
  private unsubscribe?: () => Promise<void>;

  constructor(private readonly deps: NodeEventsDeps) {}

  /** Passes the other nodes' announcements (and this node's own) on to this node's admin streams. */
  async start(): Promise<void> {
    this.unsubscribe = await this.deps.signals.subscribe(NODE_EVENTS_TOPIC, (message) => this.heard(message));
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
  }

  /** This node left the cluster gracefully (its instances handed over). */
  left(node: NodeInfo): Promise<void> {
    return this.announce({ kind: 'cluster.node.left', node: node.id, address: node.address, at: this.deps.clock.now() });
  }

  /**
   * The registry as a node just read it, each change announced by the first live node to claim it: a
   * node that registered since this node's first read (`joined`), one newly listed dead (`dead`), one
   * seen dead that heartbeats again (a stall, a healed partition: `joined`).
   */
  async seen(nodes: readonly NodeRecord[]): Promise<void> {
    const processOf = (n: NodeRecord) => `${n.id}/${n.incarnation}`;
    // One death: the process, and its last heartbeat (a node that stalled, heartbeated again and died again died twice).
    const deathOf = (n: NodeRecord) => `${processOf(n)}/${n.lastHeartbeat}`;
    const alive = nodes.filter((n) => n.alive);
    // Those listed at the first read were there before: not news.
    this.seenAlive ??= new Set(alive.map(processOf));
    for (const node of alive.filter((n) => !this.seenAlive!.has(processOf(n)))) {
      const death = [...this.seenDead].find((k) => k.startsWith(`${processOf(node)}/`));
      const first = await this.deps.store.firstToClaim(`joined:${death ?? processOf(node)}`, this.deps.claimTtlMs);
      this.seenAlive.add(processOf(node));
      if (death) this.seenDead.delete(death);
      if (first) await this.announce({ kind: 'cluster.node.joined', node: node.id, address: node.address, at: this.deps.clock.now() });
    }
    const dead = nodes.filter((n) => !n.alive);
    const listed = new Set(dead.map(deathOf));
    for (const key of [...this.seenDead].filter((k) => !listed.has(k))) this.seenDead.delete(key);
    for (const node of dead) {
      this.seenAlive.delete(processOf(node));
      const key = deathOf(node);
      if (this.seenDead.has(key)) continue;
      const first = await this.deps.store.firstToClaim(`dead:${key}`, this.deps.claimTtlMs);
      this.seenDead.add(key);
      if (first) await this.announce({ kind: 'cluster.node.dead', node: node.id, address: node.address, at: this.deps.clock.now(), lastHeartbeat: node.lastHeartbeat });
    }
    // Gone from the registry (left, or pruned): forgotten.
    const listedProcesses = new Set(nodes.map(processOf));
    for (const key of [...this.seenAlive].filter((k) => !listedProcesses.has(k))) this.seenAlive.delete(key);
  }

  private async announce(signal: NodeEventSignal): Promise<void> {
    try {
      await this.deps.signals.publish(NODE_EVENTS_TOPIC, JSON.stringify(signal));
    } catch (err) {
      // The admin views read the node list again on their slow reload.
      this.deps.logger.warn({ err, event: signal.kind, node: signal.node }, 'node event could not be told to the admin streams');
    }
  }

  private heard(message: string): void {
    let signal: NodeEventSignal;
    try {
      signal = JSON.parse(message) as NodeEventSignal;
    } catch {
      this.deps.logger.warn('unreadable node event signal ignored');
      return;
    }
    if (!NODE_EVENT_KINDS.includes(signal.kind)) return;
    const { kind, ...data } = signal;
    this.deps.hub.noticeAdmin(kind, JSON.stringify(data));
  }
}
