import type { Fence, Lease } from '@parley/core';

interface Held {
  lease: Lease;
  /** Being handed over: still held (its writes are valid) but no longer served or claimed here. */
  leaving?: boolean;
  /** Its instance is being stopped: the deadline no longer counts (a graceful hand-over's wait still does). */
  stopping?: boolean;
  /** Monotonic time (performance.now) after which this node must no longer act on the lease. */
  deadline: number;
}

/**
 * The leases this node holds, with local deadlines on the monotonic clock: a lease counts from the
 * moment its acquire or last successful renewal was *sent* (Redis started its time to live no earlier),
 * and this node stops using it `driftMarginMs` before that time to live ends — so it has stopped
 * before any other node could take the instance, whatever Redis or the network did meanwhile.
 */
export class LeaseTable {
  private readonly held = new Map<string, Held>();

  constructor(private readonly ttlMs: number, private readonly marginMs: number) {}

  /** Records a lease taken by a request sent at `sentAt` (performance.now()). */
  add(lease: Lease, sentAt: number): void {
    this.held.set(lease.instance, { lease, deadline: sentAt + this.ttlMs - this.marginMs });
  }

  /** Extends the leases a renewal sent at `sentAt` kept (those not in `lost`). */
  renewed(leases: Lease[], lost: ReadonlySet<string>, sentAt: number): void {
    for (const lease of leases) {
      const held = this.held.get(lease.instance);
      if (held && held.lease.token === lease.token && !lost.has(lease.instance)) held.deadline = sentAt + this.ttlMs - this.marginMs;
    }
  }

  /** The fence of a lease still valid now, or undefined. */
  fence(instance: string, now = performance.now()): Fence | undefined {
    const held = this.held.get(instance);
    if (!held || held.deadline <= now) return undefined;
    return { instance, token: held.lease.token };
  }

  /** True while this node runs the instance: a valid lease not being handed over. */
  has(instance: string): boolean {
    return this.fence(instance) !== undefined && !this.held.get(instance)!.leaving;
  }

  /** Marks leases as being handed over: {@link has} answers false, their fences stay valid until {@link delete}. */
  retire(instances: string[]): void {
    for (const id of instances) {
      const held = this.held.get(id);
      if (held) held.leaving = true;
    }
  }

  /** Marks leases whose instances are being stopped now: {@link expired} and {@link nextDeadline} leave them out. */
  stopping(leases: Lease[]): void {
    for (const lease of leases) if (this.holds(lease)) this.held.get(lease.instance)!.stopping = true;
  }

  /** True while this very lease (same token) is held and its instance not yet being stopped, handed over or not. */
  holds(lease: Lease): boolean {
    const held = this.held.get(lease.instance);
    return held !== undefined && held.lease.token === lease.token && !held.stopping;
  }

  /**
   * Leases whose deadline passed (the node must stop those instances now), unless already being stopped:
   * those in a graceful hand-over too, whose wait for the requests being served must not outlast the lease.
   */
  expired(now = performance.now()): Lease[] {
    return [...this.held.values()].filter((h) => h.deadline <= now && !h.stopping).map((h) => h.lease);
  }

  /** The earliest deadline of the leases not being stopped (performance.now() time), if any. */
  nextDeadline(): number | undefined {
    let next: number | undefined;
    for (const h of this.held.values()) if (!h.stopping && (next === undefined || h.deadline < next)) next = h.deadline;
    return next;
  }

  /**
   * Forgets a lease given up. Only that lease: the node may have taken the instance again meanwhile (a
   * stop takes a while), and the new lease, with its greater token, stays.
   */
  delete(lease: Lease): void {
    if (this.held.get(lease.instance)?.lease.token === lease.token) this.held.delete(lease.instance);
  }

  /** Leases this node runs (those being handed over left out). */
  all(): Lease[] {
    return [...this.held.values()].filter((h) => !h.leaving).map((h) => h.lease);
  }

  /** Every lease still held, those being handed over included (renewals keep them until they are released). */
  renewable(): Lease[] {
    return [...this.held.values()].map((h) => h.lease);
  }

  get size(): number {
    return this.held.size;
  }
}
