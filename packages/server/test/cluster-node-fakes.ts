import type { ClusterStore, Lease } from '@parley/core';
import type { ClusterObserver } from '../src/cluster/cluster-observer.js';
import type { ClusterConfig } from '../src/config/cluster-config.js';

/** Fakes shared by the ClusterNode unit tests. */

export const T = Date.UTC(2030, 0, 1, 12);
export const CONFIG: ClusterConfig = {
  nodeId: 'n1', advertiseUrl: 'http://127.0.0.1:1', secret: 'a-secret-of-16-chars', leaseTtlMs: 60_000, renewIntervalMs: 20,
  driftMarginMs: 1_000, handoverWaitMs: 1_000, movesPerMinute: 0, deadNodeRetentionMs: 60_000,
};
export const observer: ClusterObserver = { leaseTaken() {}, leasesLost() {}, handedOver() {}, forwarded() {}, handoverWaited() {}, peerRefused() {} };

/** Waits (bounded) until `done` holds. */
export async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`${what}: not within 2.5 s`);
}

/**
 * The lease store as Redis keeps it (SET NX leases, one growing token), for one node: the test says
 * when a lease is lost (it expired in Redis while the node's renewals went unanswered: a partition).
 */
export class LeaseStore {
  private token = 0;
  readonly held = new Map<string, number>();
  readonly expire = new Set<string>();
  /** While set, acquires wait for it (a slow store: the node may begin a stop or a drain meanwhile). */
  gate?: Promise<void>;
  readonly store = {
    join: async () => true,
    heartbeat: async () => true,
    leave: async () => undefined,
    nodes: async () => [],
    prune: async () => false,
    acquire: async (instance: string, node: string): Promise<Lease | null> => {
      if (this.gate) await this.gate;
      if (this.held.has(instance)) return null;
      this.held.set(instance, ++this.token);
      return { instance, node, token: this.token };
    },
    renew: async (leases: Lease[]) => leases.filter((l) => this.held.get(l.instance) !== l.token || this.expire.has(l.instance)).map((l) => {
      if (this.expire.delete(l.instance)) this.held.delete(l.instance);
      return l.instance;
    }),
    release: async (leases: Lease[]) => {
      for (const l of leases) if (this.held.get(l.instance) === l.token) this.held.delete(l.instance);
    },
    owners: async () => new Map(),
    heldBy: async () => [],
    unowned: async () => [],
    offer: async () => undefined,
    requestMove: async () => undefined,
    movesFor: async () => new Map(),
    moveTarget: async () => undefined,
    forget: async () => undefined,
    firstToClaim: async () => true,
  } satisfies ClusterStore;
}
