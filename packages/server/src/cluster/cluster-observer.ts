import type { NodeRecord } from '@parley/core';

/**
 * Why this node stopped holding a lease without giving it up: `expired` (no renewal in time: Redis
 * unreachable, or this process paused) or `lost` (a renewal found another node holding it).
 */
export type LeaseLoss = 'expired' | 'lost';

/** Why this node handed instances over gracefully: `move` (an admin move or a rebalance), `drain` (an admin drain), `shutdown` (a graceful stop). */
export type HandOverReason = 'move' | 'drain' | 'shutdown';

/**
 * One step of reaching an instance's owner from another node: `answered` (the owner's answer was
 * passed on), `retry` (an attempt refused, unreachable or abandoned: tried again while the handover
 * wait lasts), `unavailable` (answered 503: no owner answered within `handoverWaitMs`), `unknown` (answered
 * 502 `outcome_unknown`: an attempt may have reached the owner and could not safely be sent again).
 */
export type ForwardOutcome = 'answered' | 'retry' | 'unavailable' | 'unknown';

/**
 * What a cluster node's coordination and router report to the metrics (docs/rest-api.md, `GET /metrics`).
 * Called on the forwarding path: implementations count, and allocate nothing.
 */
export interface ClusterObserver {
  /** This node took an instance's lease. */
  leaseTaken(): void;
  /** This node stopped `count` instances whose leases it lost. */
  leasesLost(reason: LeaseLoss, count: number): void;
  /** This node handed `count` instances over gracefully (stopped them and released their leases). */
  handedOver(reason: HandOverReason, count: number): void;
  /** A request, WebSocket upgrade or inbound webhook for an instance owned elsewhere went one step. */
  forwarded(outcome: ForwardOutcome): void;
  /** A request found no owner at once and waited `seconds` until it was served, or answered 503. */
  handoverWaited(seconds: number): void;
  /** A request claiming to come from another node was refused: wrong or missing cluster secret. */
  peerRefused(): void;
}

/** What the metrics read from a cluster node at each scrape. */
export interface ClusterGauges {
  /** Leases this node holds now (those being handed over included). */
  owned(): number;
  /** The node registry as this node last read it. */
  nodes(): readonly NodeRecord[];
}
