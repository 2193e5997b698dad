import type { HostToken } from '@parley/core';
import type { WebhookEngine } from '@parley/webhooks';
import type { ClusterRuntime } from '../cluster/cluster-setup.js';
import type { ParleyConfig } from '../config/config.js';
import type { EventBus } from '../events/event-bus.js';
import type { StoreProjector } from '../events/store-projector.js';
import type { SubscriberFeeds } from '../events/subscriber-feeds.js';
import type { InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceRestorer } from '../instances/instance-restorer.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import type { LoadedPlugins } from '../plugins/plugin-host.js';
import type { OutboundWorker } from '../send/outbound-worker.js';
import type { Pacer } from '../send/pacer.js';
import type { PacingPolicies } from '../send/pacing-policies.js';
import type { SendPipeline } from '../send/send-pipeline.js';
import type { SendQueue } from '../send/send-queue.js';
import type { InstanceDataRouter } from '../services/instance-data-router.js';
import type { MediaResolver } from '../services/media-resolver.js';

const token = <T>(name: string) => Symbol.for(`parley.server.${name}`) as HostToken<T>;

/**
 * The tokens of the server's own services in its container (`@parley/core`'s `Tokens` name those
 * plugins may declare too). Registered by `registerServerServices`, resolved by the composition root.
 */
export const ServerTokens = {
  Config: token<ParleyConfig>('Config'),
  /** What the configured plugins registered (registered by the composition root once they loaded). */
  Plugins: token<LoadedPlugins>('Plugins'),
  /** The cluster runtime, or undefined off a cluster. */
  Cluster: token<ClusterRuntime | undefined>('Cluster'),
  Metrics: token<ServerMetrics>('Metrics'),
  /** The storage back end with per-instance external databases routed in, timed for the metrics. */
  Data: token<InstanceDataRouter>('Data'),
  Registry: token<InstanceRegistry>('Registry'),
  Projector: token<StoreProjector>('Projector'),
  Webhooks: token<WebhookEngine>('Webhooks'),
  Bus: token<EventBus>('Bus'),
  Subscribers: token<SubscriberFeeds>('Subscribers'),
  Media: token<MediaResolver>('Media'),
  Policies: token<PacingPolicies>('Policies'),
  Pacer: token<Pacer>('Pacer'),
  Worker: token<OutboundWorker>('Worker'),
  /** The accepting side of the outbound queue, or undefined when `queue.enabled` is false. */
  Queue: token<SendQueue | undefined>('Queue'),
  Pipeline: token<SendPipeline>('Pipeline'),
  Restorer: token<InstanceRestorer>('Restorer'),
} as const;
