import { randomUUID } from 'node:crypto';
import { withinTime, type Clock, type ClusterStore, type Fence, type Lease, type Logger, type NodeInfo, type NodeRecord } from '@parley/core';
import { settledWithin } from '../app/shutdown-budget.js';
import { InstanceMovingError } from './instance-moving.js';
import type { ClusterConfig } from '../config/cluster-config.js';
import { ConfigError } from '../config/config.js';
import type { KeyHolders } from '../http/idempotency.js';
import type { ClusterObserver, HandOverReason } from './cluster-observer.js';
import type { InstanceHost } from './instance-host.js';
import { bounded } from './bounded-call.js';
import { LeaseTable } from './lease-table.js';
import { candidates, fairShare, spreadOrder } from './placement.js';

/** Loop period: lease deadlines are checked, orphans looked for and moves applied this often. */
const SCAN_MS = 500;
/** How long a graceful hand-over waits for the requests being served for an instance. */
const IDLE_WAIT_MS = 10_000;
/** Orphans one scan takes beyond its fair share once they waited this many scans (no instance waits forever on stale loads). */
const PATIENCE_SCANS = 4;

/**
 * This server as a node of a cluster: its entry in the node registry (refreshed by a heartbeat),
 * the leases of the instances it owns (taken, renewed, given up), orphan pick-up, requested moves,
 * rebalancing and draining. Only it decides when this node may run an instance.
 */
export class ClusterNode {
  readonly info: NodeInfo;
  readonly leases: LeaseTable;
  private nodesCache: NodeRecord[] = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private renewTimer?: NodeJS.Timeout;
  private renewing?: Promise<void>;
  /** Fires at the earliest lease deadline: an instance stops then, whatever Redis calls are pending. */
  private deadlineTimer?: NodeJS.Timeout;
  private host?: InstanceHost;
  private closing = false;
  /** Orphans seen by earlier scans, with how many scans they have waited. */
  private readonly waiting = new Map<string, number>();
  private moveBudget: { minute: number; used: number } = { minute: 0, used: 0 };
  private readonly starting = new Map<string, Promise<void>>();
  /** Requests being served here, by instance. */
  private readonly busy = new Map<string, number>();
  /** Told the registry each time this node reads it (the admin stream's node events). */
  watchNodes?: (nodes: readonly NodeRecord[]) => Promise<void>;
  private watching?: Promise<void>;

  constructor(
    readonly store: ClusterStore,
    readonly config: ClusterConfig,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly observer: ClusterObserver,
  ) {
    this.info = { id: config.nodeId, address: config.advertiseUrl, incarnation: randomUUID(), startedAt: clock.now(), load: 0, draining: false };
    this.leases = new LeaseTable(config.leaseTtlMs, config.driftMarginMs);
  }

  get id(): string {
    return this.info.id;
  }

  /**
   * Registers the node (throws when another live process uses the same node id) and starts its renewals (heartbeat
   * and leases, every `renewIntervalMs`): a node starting up slower than its entry's time to live is not listed dead.
   */
  async join(): Promise<void> {
    if (!(await this.store.join(this.info, this.config.leaseTtlMs))) {
      throw new ConfigError(`cluster.nodeId (PARLEY_NODE_ID) "${this.id}" is in use by another live node of this cluster; give every node its own id`);
    }
    this.nodesCache = await this.store.nodes();
    const renew = () => {
      const sentAt = performance.now();
      this.renewing = this.renew().catch((err: unknown) => this.logger.warn({ err }, 'cluster renewal failed'))
        .finally(() => {
          if (!this.closing) this.renewTimer = setTimeout(renew, Math.max(0, sentAt + this.config.renewIntervalMs - performance.now())).unref();
        });
    };
    renew();
  }

  /** Starts the scan (orphans, moves, rebalancing, every {@link SCAN_MS}), apart from the renewals: a slow scan never delays one. */
  start(host: InstanceHost): void {
    this.host = host;
    const scan = () => {
      this.running = this.scan().catch((err: unknown) => this.logger.warn({ err }, 'cluster scan failed'))
        .finally(() => {
          if (!this.closing) this.timer = setTimeout(scan, SCAN_MS);
        });
    };
    scan();
  }

  /** The nodes as last read (refreshed every scan). */
  nodes(): NodeRecord[] {
    return this.nodesCache;
  }

  /**
   * Idempotency keys held by this process carry its incarnation; a key whose holder's node is listed
   * dead (its heartbeat expired: killed, crashed) will never be completed by it.
   */
  keyHolders(): KeyHolders {
    return {
      token: () => `${this.info.incarnation}/${randomUUID()}`,
      gone: (owner) => {
        const incarnation = owner.slice(0, owner.indexOf('/'));
        return incarnation !== this.info.incarnation && this.nodesCache.some((n) => n.incarnation === incarnation && !n.alive);
      },
    };
  }

  /**
   * Reads the node registry again. {@link watchNodes} is told in the background, one read at a time: its
   * store calls (which may wait out a silent Redis) never hold a scan or a request routed meanwhile.
   */
  async refreshNodes(): Promise<NodeRecord[]> {
    this.nodesCache = await this.store.nodes();
    this.watching ??= this.watchNodes?.(this.nodesCache)
      .catch((err: unknown) => this.logger.warn({ err }, 'node events could not be announced'))
      .finally(() => (this.watching = undefined));
    return this.nodesCache;
  }

  /** The fence of an instance this node owns now (undefined once the lease is lost or past its deadline). */
  fence(instance: string): Fence | undefined {
    return this.leases.fence(instance);
  }

  /** Makes this node the instance's owner: keeps a valid lease, or takes a free one; InstanceMovingError otherwise. */
  async claim(instance: string, options: { honourMove?: boolean } = {}): Promise<void> {
    if (this.leases.has(instance)) return;
    if (this.closing || this.info.draining) throw new InstanceMovingError(instance);
    const sentAt = performance.now();
    const lease = await this.store.acquire(instance, this.id, this.config.leaseTtlMs, options);
    if (!lease) throw new InstanceMovingError(instance);
    // Before the lease counts here (requests meanwhile answer 503 instance_moving and are retried).
    await this.host?.takeOver?.(instance).catch((err: unknown) => this.logger.warn({ err, instance }, 'taking over the previous owner\'s work failed'));
    this.leases.add(lease, sentAt);
    // Not used when a stop or drain began meanwhile (its hand-over listed the leases to give up without this one: nothing would
    // stop the instance here, a stopping process would connect it and exit), nor when the take-over outlasted the lease's
    // deadline (its storage calls waited, e.g. on locks of a node cut off mid-transaction).
    if (this.closing || this.info.draining || !this.leases.fence(instance)) {
      this.leases.delete(lease);
      this.logger.info({ instance, fencingToken: lease.token, leaving: this.closing || this.info.draining }, 'lease given back unused: this node began leaving, or its deadline passed, while it was taken');
      await this.store.release([lease]).catch(() => undefined);
      throw new InstanceMovingError(instance);
    }
    this.armDeadline();
    this.info.load = this.leases.size;
    this.observer.leaseTaken();
    this.logger.info({ instance, fencingToken: lease.token }, 'instance lease taken');
    // Whoever asked (a request, an orphan scan), the instance now runs here: reconnected if it wants a connection.
    this.startUnder(lease);
  }

  /** True while this node runs the instance under this very lease: not lost, not being handed over, not taken again since. */
  runs(lease: Fence): boolean {
    return this.leases.has(lease.instance) && this.leases.fence(lease.instance)?.token === lease.token;
  }

  /**
   * Starts an instance under a lease just taken, once its earlier start in this process (under a lease
   * lost meanwhile) has settled, and only while that lease is still the one held: two starts at once
   * would each connect it, two live sessions of one account from one process.
   */
  private startUnder(lease: Lease): void {
    const { instance } = lease;
    const previous = this.starting.get(instance) ?? Promise.resolve();
    const started: Promise<void> = previous
      .then(() => (this.runs(lease) ? this.host?.start(instance, lease) : undefined))
      .catch((err: unknown) => this.logger.warn({ err, instance }, 'instance could not be started on this node'))
      .finally(() => {
        if (this.starting.get(instance) === started) this.starting.delete(instance);
      });
    this.starting.set(instance, started);
  }

  /** Counts a request being served here for an instance until `done` fires (a graceful hand-over waits for it). */
  serving(instance: string, done: (callback: () => void) => void): void {
    this.busy.set(instance, (this.busy.get(instance) ?? 0) + 1);
    done(() => {
      const left = (this.busy.get(instance) ?? 1) - 1;
      if (left > 0) this.busy.set(instance, left);
      else this.busy.delete(instance);
    });
  }

  /** Resolves once no request is being served for these instances, or after {@link IDLE_WAIT_MS}. */
  private async idle(instances: string[]): Promise<void> {
    const until = performance.now() + IDLE_WAIT_MS;
    while (instances.some((id) => this.busy.has(id)) && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
  }

  /** Resolves once an instance this node just took has been started (loaded, reconnected): requests wait for it. */
  whenStarted(instance: string): Promise<void> {
    return this.starting.get(instance) ?? Promise.resolve();
  }

  /**
   * Resolves once an instance this node took has been started, answering whether this node still runs
   * it: a hand-over (a move, a drain, a stop) may have given it up while the start ran, and a request
   * that waited must then be routed again, not served here.
   */
  async started(instance: string): Promise<boolean> {
    await this.whenStarted(instance);
    return this.leases.has(instance);
  }

  /**
   * Drains (an admin drain, or a graceful stop): stops every owned instance and releases its lease so other nodes take
   * it at once. `left` (a stop): how long store calls may still wait; one unanswered then is not waited for.
   */
  private async handOver(reason: Exclude<HandOverReason, 'move'>, left: () => number = () => Infinity): Promise<void> {
    this.info.draining = true;
    await settledWithin(this.store.heartbeat(this.info, this.config.leaseTtlMs, this.clock.now()), left());
    const all = this.leases.all();
    await this.giveUp(all, true);
    // Counted once given up here: if the release fails, the leases expire and the others take the instances then.
    this.observer.handedOver(reason, all.length);
    await withinTime(this.store.release(all), left(), 'the lease releases got no answer within the stop\'s time');
    this.logger.info({ instances: all.length }, 'instances handed over to the other nodes');
  }

  /** Sets or clears draining (an admin drain): a draining node hands its instances over and takes none. */
  async setDraining(draining: boolean): Promise<void> {
    if (draining) await this.handOver('drain');
    else this.info.draining = false;
    await this.store.heartbeat(this.info, this.config.leaseTtlMs, this.clock.now());
  }

  /**
   * Stops the loop, hands every instance over and leaves the registry. Idempotent. Its store calls (the loop's round
   * under way, the draining heartbeat, the releases, the leave) are waited for as long as `left()` says: the leases a silent
   * store could not release expire, and the others take the instances then. The instances are stopped whatever it does.
   */
  async close(left: () => number = () => Infinity): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.timer);
    clearTimeout(this.renewTimer);
    await settledWithin(Promise.all([this.running, this.renewing]), left());
    await this.handOver('shutdown', left).catch((err: unknown) => this.logger.warn({ err }, 'handing instances over failed; their leases will expire'));
    await settledWithin(this.store.leave(this.info), left());
    clearTimeout(this.deadlineTimer);
  }

  /**
   * Stops instances this node no longer runs. The leases are retired first, and a graceful hand-over
   * (a stop, a drain, a move) lets the requests already being served here finish (bounded): from then on requests are
   * routed elsewhere and nothing loads the instances here again, while writes of the stopping adapters
   * stay fenced by the still valid lease (an expired or lost one is refused by Redis anyway).
   */
  private async giveUp(leases: Lease[], graceful = false): Promise<void> {
    this.leases.retire(leases.map((l) => l.instance));
    if (graceful) await this.idle(leases.map((l) => l.instance));
    // Those the deadline timer (or a lost renewal) stopped during the wait are stopped already.
    const stop = leases.filter((l) => this.leases.holds(l));
    this.leases.stopping(stop);
    await Promise.allSettled(stop.map((l) => this.host?.stop(l.instance)));
    for (const l of leases) this.leases.delete(l);
    this.info.load = this.leases.size;
    this.armDeadline();
  }

  /**
   * Arms the deadline timer for the earliest deadline of the leases this node runs. A timer, not a
   * check between the loop's Redis calls: those wait up to the storage's command time-out each.
   */
  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    const next = this.leases.nextDeadline();
    if (next === undefined) return;
    this.deadlineTimer = setTimeout(() => {
      const lateMs = Math.round(performance.now() - next);
      if (lateMs > this.config.driftMarginMs / 2) this.logger.warn({ lateMs, driftMarginMs: this.config.driftMarginMs }, 'lease deadline timer fired late: the event loop was blocked');
      this.stopExpired().catch((err: unknown) => this.logger.warn({ err }, 'stopping instances past their lease deadline failed'));
      this.armDeadline();
    }, Math.max(0, Math.ceil(next - performance.now()))).unref();
  }

  private async scan(): Promise<void> {
    await this.stopExpired();
    await this.refreshNodes();
    await this.pruneDead();
    if (this.info.draining) return;
    await this.applyMoves();
    await this.adoptOrphans();
    await this.rebalance();
  }

  /**
   * Forgets the nodes that stopped heartbeating more than `deadNodeRetentionMs` ago (last heartbeat on
   * their clock, compared with this node's): until then they are listed dead; their instances stay
   * findable as orphans (offered) after the prune.
   */
  private async pruneDead(): Promise<void> {
    const before = this.clock.now() - this.config.deadNodeRetentionMs;
    for (const dead of this.nodesCache.filter((n) => !n.alive && n.lastHeartbeat < before)) {
      if (!(await this.store.prune(dead.id, before))) continue;
      this.nodesCache = this.nodesCache.filter((n) => n.id !== dead.id);
      this.logger.info({ deadNode: dead.id, lastHeartbeat: dead.lastHeartbeat }, 'dead node pruned from the registry');
    }
  }

  /** Stops instances whose lease deadline passed (renewals failed: Redis unreachable, or this process was paused). */
  private async stopExpired(): Promise<void> {
    const expired = this.leases.expired();
    for (const lease of expired) {
      this.logger.warn({ instance: lease.instance, fencingToken: lease.token }, 'lease could not be renewed in time; instance stopped on this node');
    }
    if (expired.length > 0) this.observer.leasesLost('expired', expired.length);
    await this.giveUp(expired);
  }

  /**
   * Heartbeat and lease renewal, sent together. Each is given up after `renewIntervalMs` (the next
   * round sends a new one): an unanswered renewal never holds the next one back past the deadline.
   */
  private async renew(): Promise<void> {
    const sentAt = performance.now();
    const leases = this.leases.renewable();
    const [alive, renewed] = await Promise.all([
      bounded(this.store.heartbeat(this.info, this.config.leaseTtlMs, this.clock.now()), 'heartbeat', this.config.renewIntervalMs, this.logger),
      leases.length > 0 ? bounded(this.store.renew(leases, this.config.leaseTtlMs), 'lease renewal', this.config.renewIntervalMs, this.logger) : Promise.resolve([]),
    ]);
    if (alive === false) this.logger.error({ node: this.id }, 'another process took this node id in the registry');
    if (leases.length === 0 || renewed === undefined) return;
    const lost = new Set(renewed);
    this.leases.renewed(leases, lost, sentAt);
    this.armDeadline();
    // Those being stopped already (the deadline timer) are counted there; those in a graceful hand-over stop now.
    const stop = leases.filter((l) => lost.has(l.instance) && this.leases.holds(l));
    for (const l of stop) this.logger.warn({ instance: l.instance }, 'lease lost to another node; instance stopped on this node');
    if (stop.length > 0) this.observer.leasesLost('lost', stop.length);
    await this.giveUp(stop);
  }

  /** Instances without a live lease: offered ones, this node's own from an earlier run, and those of dead nodes. */
  private async orphans(): Promise<string[]> {
    const ids = new Set(await this.store.unowned(1000));
    for (const id of await this.store.heldBy(this.id)) if (!this.leases.has(id)) ids.add(id);
    for (const node of this.nodesCache) if (!node.alive) for (const id of await this.store.heldBy(node.id)) ids.add(id);
    if (ids.size === 0) return [];
    const owners = await this.store.owners([...ids]);
    return [...ids].filter((id) => !owners.has(id));
  }

  private async adoptOrphans(): Promise<void> {
    const orphans = await this.orphans();
    for (const id of [...this.waiting.keys()]) if (!orphans.includes(id)) this.waiting.delete(id);
    if (orphans.length === 0) return;
    const targets = await this.store.movesFor(orphans);
    const alive = new Set(candidates(this.nodesCache).map((n) => n.id));
    const mine = orphans.filter((id) => targets.get(id) === this.id);
    const open = orphans.filter((id) => !targets.has(id) || !alive.has(targets.get(id)!));
    const room = Math.max(0, fairShare(this.nodesCache, open.length) - this.leases.size);
    const patient = open.filter((id) => (this.waiting.get(id) ?? 0) >= PATIENCE_SCANS);
    const take = [...new Set([...mine, ...spreadOrder(this.id, open).slice(0, room), ...patient])];
    for (const id of open) this.waiting.set(id, (this.waiting.get(id) ?? 0) + 1);
    // A move to a node that is gone no longer holds an orphan back.
    await Promise.all(take.map((id) => this.adopt(id, targets.has(id) && targets.get(id) !== this.id)));
  }

  private async adopt(id: string, overrideMove: boolean): Promise<void> {
    // Refused: another node was faster.
    if (await this.claim(id, { honourMove: !overrideMove }).then(() => true, () => false)) this.waiting.delete(id);
  }

  /** Hands over the instances an admin (or a rebalance) asked to move to another live node. */
  private async applyMoves(): Promise<void> {
    const held = this.leases.all();
    const moves = await this.store.movesFor(held.map((l) => l.instance));
    const alive = new Set(candidates(this.nodesCache).map((n) => n.id));
    const leaving = held.filter((l) => moves.has(l.instance) && moves.get(l.instance) !== this.id && alive.has(moves.get(l.instance)!));
    if (leaving.length === 0) return;
    await this.giveUp(leaving, true);
    this.observer.handedOver('move', leaving.length);
    await this.store.release(leaving);
    this.logger.info({ instances: leaving.map((l) => l.instance) }, 'instances moved to other nodes');
  }

  /** An overloaded node asks the least-loaded one to take some of its instances, within `movesPerMinute`. */
  private async rebalance(): Promise<void> {
    const able = candidates(this.nodesCache);
    if (able.length < 2) return;
    const minute = Math.floor(this.clock.now() / 60_000);
    if (this.moveBudget.minute !== minute) this.moveBudget = { minute, used: 0 };
    const share = fairShare(this.nodesCache);
    const lightest = able.filter((n) => n.id !== this.id).sort((a, b) => a.load - b.load || a.id.localeCompare(b.id))[0];
    if (!lightest || this.leases.size <= share || lightest.load >= share - 1) return;
    const count = Math.min(this.leases.size - share, share - lightest.load, this.config.movesPerMinute - this.moveBudget.used);
    if (count <= 0) return;
    const pick: Lease[] = this.leases.all().slice(0, count);
    for (const l of pick) await this.store.requestMove(l.instance, lightest.id);
    this.moveBudget.used += pick.length;
    this.logger.info({ to: lightest.id, count: pick.length }, 'rebalancing: instances asked to move');
  }
}
