import type { ChannelDriver, Clock, ExternalDataConnector, HostSettings, Logger, WebhookFormat } from '@parley/core';
import type { WebhookEngine } from '@parley/webhooks';
import type { ClusterNode } from '../cluster/cluster-node.js';
import type { ClusterRouter } from '../cluster/cluster-router.js';
import type { ParleyConfig } from '../config/config.js';
import type { EventBus } from '../events/event-bus.js';
import type { InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceRestorer } from '../instances/instance-restorer.js';
import type { InstanceDataRouter } from '../services/instance-data-router.js';
import type { MediaResolver } from '../services/media-resolver.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import type { OutboundWorker } from '../send/outbound-worker.js';
import type { Pacer } from '../send/pacer.js';
import type { PacingPolicies } from '../send/pacing-policies.js';
import type { SendPipeline } from '../send/send-pipeline.js';
import type { StreamHub } from '../streams/stream-hub.js';
import type { SendQueue } from '../send/send-queue.js';

/** Everything route modules and services use; built once by the composition root. */
export interface ServerContext {
  config: ParleyConfig;
  host: HostSettings;
  logger: Logger;
  clock: Clock;
  /** The storage back end, with per-instance external databases routed in. */
  storage: InstanceDataRouter;
  /** The external-database connector a plugin provides (spec 4.1 `/instance/mongodb`), if any. */
  externalDatabase?: ExternalDataConnector;
  registry: InstanceRegistry;
  bus: EventBus;
  drivers: Map<string, ChannelDriver>;
  formats: Map<string, WebhookFormat>;
  media: MediaResolver;
  /** The one send path (spec 4.2, 4.3, 4.13). */
  sends: SendPipeline;
  /** The outbound queue (issue 16): accepting side (absent when `queue.enabled` is false), worker, policies, pacer. */
  outbound: { queue?: SendQueue; worker: OutboundWorker; policies: PacingPolicies; pacer: Pacer };
  /** Reconnects instances in bulk (start-up; instances taken over from another node): bounded, rate-limited, pending work first. */
  restorer: InstanceRestorer;
  /** The webhook engine, one of the bus's subscribers. */
  webhooks: WebhookEngine;
  /** The Prometheus metrics `GET /metrics` answers. */
  metrics: ServerMetrics;
  /** This server's cluster node, when it runs in a cluster (docs/cluster.md). */
  cluster?: ClusterNode;
  /** Where this cluster node sends what it does not serve itself (requests, inbound webhooks of other nodes' instances). */
  clusterRouter?: ClusterRouter;
  /** The live event streams (`GET /{key}/events`, `GET /admin/events`). */
  streams: StreamHub;
  /** Server version (the @parley/server package version). */
  version: string;
}
