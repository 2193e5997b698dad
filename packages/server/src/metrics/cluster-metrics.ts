import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ClusterGauges, ClusterObserver, ForwardOutcome, HandOverReason, LeaseLoss } from '../cluster/cluster-observer.js';
import { FastCounter } from './fast-metrics.js';

/** Handover waits (seconds): one retry pause (50 ms) to past the default `handoverWaitMs` (20 s). */
const WAIT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

const LOSSES: readonly LeaseLoss[] = ['expired', 'lost'];
const HAND_OVERS: readonly HandOverReason[] = ['move', 'drain', 'shutdown'];
const OUTCOMES: readonly ForwardOutcome[] = ['answered', 'retry', 'unavailable', 'unknown'];

/**
 * The `parley_cluster_*` metrics of a cluster node, registered in the server's registry only when the
 * server is one (a single server has none). Every labelled series exists from the start at 0, so that
 * alerts on `increase()` see the first event. No label names an instance or a node.
 */
export class ClusterMetrics implements ClusterObserver {
  private readonly takes: Counter;
  private readonly losses: FastCounter;
  private readonly handOvers: FastCounter;
  private readonly forwards: FastCounter;
  private readonly waits: Histogram;
  private readonly peerFailures: Counter;

  constructor(registry: Registry, gauges: ClusterGauges) {
    const registers = [registry];
    new Gauge({
      name: 'parley_cluster_instances_owned', help: 'Instance leases this node holds now', registers,
      collect() {
        this.set(gauges.owned());
      },
    });
    new Gauge({
      name: 'parley_cluster_nodes', help: 'Nodes of the registry as this node last read it (every scan), by state: `alive`, `draining` (alive), `dead`',
      labelNames: ['state'], registers,
      collect() {
        const nodes = gauges.nodes();
        this.set({ state: 'alive' }, nodes.filter((n) => n.alive && !n.draining).length);
        this.set({ state: 'draining' }, nodes.filter((n) => n.alive && n.draining).length);
        this.set({ state: 'dead' }, nodes.filter((n) => !n.alive).length);
      },
    });
    this.takes = new Counter({ name: 'parley_cluster_lease_takes_total', help: 'Instance leases this node took', registers });
    this.losses = new FastCounter({
      name: 'parley_cluster_lease_losses_total', help: 'Instances this node stopped because it lost their lease: `expired` (not renewed in time), `lost` (another node holds it)',
      labelNames: ['reason'], registry,
    });
    this.handOvers = new FastCounter({
      name: 'parley_cluster_handovers_total', help: 'Instances this node handed over gracefully, by reason: `move`, `drain`, `shutdown`',
      labelNames: ['reason'], registry,
    });
    this.forwards = new FastCounter({
      name: 'parley_cluster_forwarded_requests_total',
      help: 'Requests for instances owned elsewhere, by outcome: `answered` (by the owner), `retry` (an attempt refused or unreachable, tried again), `unavailable` (503 after the handover wait), `unknown` (502 outcome_unknown: an attempt may have reached the owner and could not safely be sent again)',
      labelNames: ['outcome'], registry,
    });
    this.waits = new Histogram({
      name: 'parley_cluster_handover_wait_seconds', help: 'Time requests that found no owner at once waited for one (served, or 503 after cluster.handoverWaitMs)',
      buckets: WAIT_BUCKETS, registers,
    });
    this.peerFailures = new Counter({
      name: 'parley_cluster_peer_auth_failures_total', help: 'Forwarded requests refused for a wrong or missing cluster secret', registers,
    });
    for (const reason of LOSSES) this.losses.series(reason);
    for (const reason of HAND_OVERS) this.handOvers.series(reason);
    for (const outcome of OUTCOMES) this.forwards.series(outcome);
  }

  leaseTaken(): void {
    this.takes.inc();
  }

  leasesLost(reason: LeaseLoss, count: number): void {
    this.losses.series(reason).inc(count);
  }

  handedOver(reason: HandOverReason, count: number): void {
    this.handOvers.series(reason).inc(count);
  }

  forwarded(outcome: ForwardOutcome): void {
    this.forwards.series(outcome).inc();
  }

  handoverWaited(seconds: number): void {
    this.waits.observe(seconds);
  }

  peerRefused(): void {
    this.peerFailures.inc();
  }
}
