import type { Clock, Logger, StorageSignals } from '@parley/core';

/** The storage signal topic on which nodes say that they have admin streams open, and confirm it. */
const ADMIN_WATCH_TOPIC = 'cluster.events.watch';

/** How the watch protocol is timed (docs/cluster.md, *What is guaranteed*: the admin stream). */
export interface AdminWatchTiming {
  /** A node with admin streams open says so this often. */
  renewMs: number;
  /** A node publishes its events while it heard such a word this recently (and for this long after it starts). */
  ttlMs: number;
  /** How long a node opening its first admin stream waits for the other live nodes to confirm. */
  ackTimeoutMs: number;
}

const ADMIN_WATCH_TIMING: AdminWatchTiming = { renewMs: 5_000, ttlMs: 15_000, ackTimeoutMs: 1_000 };

/** One signal: `watch` (the sender has admin streams open; `ask`: confirm it to me) or `ack` (to the asker). */
interface WatchSignal {
  node: string;
  kind: 'watch' | 'ack';
  ask?: boolean;
  to?: string;
}

/** What the watch needs. */
export interface AdminWatchDeps {
  nodeId: string;
  signals: StorageSignals;
  clock: Clock;
  /** Ids of the other live nodes of the cluster. */
  peers(): Promise<string[]>;
  /** Whether this node has admin streams open now. */
  watched(): boolean;
  logger: Logger;
  timing?: AdminWatchTiming;
}

/**
 * Tells a node whether any node has an admin-wide event stream open, so that it publishes its
 * handled events to the others only then ({@link wanted}). A node with admin streams says so every
 * `renewMs`; the others publish while they heard it within `ttlMs` (a node that just started
 * publishes for `ttlMs` before it has heard anything). A node opening its first admin stream asks,
 * and waits (bounded) until every other live node has confirmed: each confirms after it started
 * publishing, and every event it handled before that is in the shared event log already (its bus
 * tells the fan-in of an event only once it is logged), so a replay that reads the log afterwards
 * misses nothing.
 */
export class AdminWatch {
  private readonly timing: AdminWatchTiming;
  private publishUntil: number;
  private confirmed: Promise<void> | undefined;
  private awaiting: { peers: Set<string>; resolve: () => void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(private readonly deps: AdminWatchDeps) {
    this.timing = deps.timing ?? ADMIN_WATCH_TIMING;
    this.publishUntil = deps.clock.now() + this.timing.ttlMs;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.deps.signals.subscribe(ADMIN_WATCH_TOPIC, (message) => this.heard(message));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.unsubscribe?.();
  }

  /** Whether some node has admin streams open: this node's handled events are to be published. */
  wanted(): boolean {
    return this.deps.clock.now() < this.publishUntil;
  }

  /**
   * An admin stream of this node starts: resolves once every other live node has confirmed that it
   * publishes its events (at once while an earlier stream's confirmation holds), or after
   * `ackTimeoutMs` (a node that does not answer is logged). Rejects when the store cannot be reached.
   */
  watch(): Promise<void> {
    this.confirmed ??= this.ask().catch((err: unknown) => {
      this.confirmed = undefined;
      throw err;
    });
    return this.confirmed;
  }

  /** The link to the store was lost (words may have been missed): the next stream asks again. */
  reset(): void {
    this.confirmed = undefined;
  }

  private async ask(): Promise<void> {
    this.timer ??= setInterval(() => this.renew(), this.timing.renewMs).unref();
    const peers = new Set(await this.deps.peers());
    const acked = new Promise<void>((resolve) => {
      this.awaiting = { peers, resolve };
      if (peers.size === 0) resolve();
    });
    let timeout: NodeJS.Timeout | undefined;
    try {
      await this.send({ node: this.deps.nodeId, kind: 'watch', ask: true });
      await Promise.race([acked, new Promise<void>((resolve) => (timeout = setTimeout(resolve, this.timing.ackTimeoutMs)))]);
      if (peers.size > 0) this.deps.logger.warn({ nodes: [...peers] }, 'nodes did not confirm the admin stream in time; their events may miss its replay');
    } finally {
      clearTimeout(timeout);
      this.awaiting = undefined;
    }
  }

  /** Every `renewMs` while asked: says so again while admin streams are open, else stops. */
  private renew(): void {
    if (!this.deps.watched()) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.confirmed = undefined;
      return;
    }
    this.send({ node: this.deps.nodeId, kind: 'watch' }).catch((err: unknown) => this.deps.logger.warn({ err }, 'could not renew the admin stream watch'));
  }

  private async send(signal: WatchSignal): Promise<void> {
    await this.deps.signals.publish(ADMIN_WATCH_TOPIC, JSON.stringify(signal));
  }

  private heard(message: string): void {
    let signal: WatchSignal;
    try {
      signal = JSON.parse(message) as WatchSignal;
    } catch {
      this.deps.logger.warn('unreadable admin watch signal ignored');
      return;
    }
    if (signal.node === this.deps.nodeId) return;
    if (signal.kind === 'watch') {
      this.publishUntil = Math.max(this.publishUntil, this.deps.clock.now() + this.timing.ttlMs);
      // Confirmed only now that this node publishes: what it handled before is in the event log.
      if (signal.ask) this.send({ node: this.deps.nodeId, kind: 'ack', to: signal.node }).catch((err: unknown) => this.deps.logger.warn({ err }, 'could not confirm an admin stream watch'));
    } else if (signal.kind === 'ack' && signal.to === this.deps.nodeId && this.awaiting) {
      this.awaiting.peers.delete(signal.node);
      if (this.awaiting.peers.size === 0) this.awaiting.resolve();
    }
  }
}
