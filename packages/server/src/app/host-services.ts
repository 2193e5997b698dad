import { channelDirectory, Tokens, ValidationError, type Clock, type HostSends, type Logger } from '@parley/core';
import { WebhookEngine, type WebhookOptions } from '@parley/webhooks';
import { clusterRuntime } from '../cluster/cluster-setup.js';
import { EventBus } from '../events/event-bus.js';
import { instanceFilter } from '../events/instance-filter.js';
import { StoreProjector } from '../events/store-projector.js';
import { SubscriberFeeds } from '../events/subscriber-feeds.js';
import { InstanceRegistry } from '../instances/instance-registry.js';
import { InstanceRestorer } from '../instances/instance-restorer.js';
import { ServerMetrics } from '../metrics/server-metrics.js';
import { timedStorage } from '../metrics/timed-storage.js';
import type { HostContainer } from '../plugins/host-container.js';
import { MESSAGE_LIMITS } from '../schemas/message.schemas.js';
import { pendingRecords } from '../send/outbound-job.js';
import { OutboundWorker } from '../send/outbound-worker.js';
import { Pacer } from '../send/pacer.js';
import { PacingPolicies } from '../send/pacing-policies.js';
import { SendPipeline } from '../send/send-pipeline.js';
import { SendQueue } from '../send/send-queue.js';
import { InstanceDataRouter } from '../services/instance-data-router.js';
import { MediaResolver } from '../services/media-resolver.js';
import { ServerTokens as S } from './server-tokens.js';

/**
 * Registers the server's services in its container, each as a factory of the services it resolves
 * (built once, at the first resolve): the composition root resolves them in the order its start-up
 * needs (storage initialised before the registry reads it), and plugins resolve the ones `@parley/core`'s
 * `Tokens` name ({@link Tokens.Channels} and {@link Tokens.Sends} are composed from every plugin's
 * registrations). Expects `Tokens.Logger`, `Tokens.Clock`, `Tokens.HostSettings` and
 * {@link S.Config} registered, and {@link S.Plugins} and `Tokens.Storage` once the plugins loaded.
 */
export function registerServerServices(c: HostContainer): void {
  const config = () => c.resolve(S.Config);
  const logger = (component?: string): Logger => (component ? c.resolve(Tokens.Logger).child({ component }) : c.resolve(Tokens.Logger));
  const clock = (): Clock => c.resolve(Tokens.Clock);
  const drivers = () => c.resolve(S.Plugins).drivers;
  const pending = () => pendingRecords(drivers().values());
  c.factory(S.Metrics, () => new ServerMetrics());
  c.factory(S.Cluster, () => {
    const { cluster, adminToken } = config();
    return cluster ? clusterRuntime(cluster, c.resolve(Tokens.Storage), { clock: clock(), logger: logger(), adminToken, metrics: c.resolve(S.Metrics) }) : undefined;
  });
  c.factory(S.Data, () => new InstanceDataRouter(timedStorage(c.resolve(Tokens.Storage), c.resolve(S.Metrics).storage)));
  c.factory(Tokens.Channels, () => channelDirectory(drivers().values()), { composed: true });
  c.factory(S.Registry, () => new InstanceRegistry(c.resolve(S.Data), drivers(), clock(), logger(), c.resolve(S.Cluster)?.placement));
  c.factory(S.Projector, () => new StoreProjector(c.resolve(S.Data), c.resolve(S.Registry), clock(), logger('store')));
  c.factory(S.Webhooks, () => {
    const plugins = c.resolve(S.Plugins);
    return new WebhookEngine({
      storage: c.resolve(S.Data), formats: [...plugins.formats.values()], sinks: [...plugins.sinks.values()], logger: logger(), clock: clock(),
      host: c.resolve(Tokens.HostSettings), channels: c.resolve(Tokens.Channels),
      options: { serviceTag: config().serviceTag, ...config().webhooks } as Partial<WebhookOptions>, observer: c.resolve(S.Metrics), logEvents: true,
    });
  });
  c.factory(S.Bus, () => {
    const storage = c.resolve(S.Data);
    const webhooks = c.resolve(S.Webhooks);
    // The store first: webhooks tell of stored state, and both run before the instance's next event.
    // The webhook engine logs each event in the same write as its deliveries: a stream client told of
    // an event finds it stored and its webhooks queued, and "logged" means "queued" after a crash.
    const bus = new EventBus({
      registry: c.resolve(S.Registry), subscribers: [c.resolve(S.Projector), webhooks], filter: instanceFilter, clock: clock(), logger: logger('events'),
      durable: () => webhooks.written().then(() => storage.flush()),
      onDiscard: (listener) => storage.onDiscard?.(listener),
      outage: { maxWaitMs: config().events.outageWaitSeconds * 1000 },
      backlog: { maxEvents: config().events.maxBacklog, maxBytes: config().events.maxBacklogBytes },
      observer: c.resolve(S.Metrics),
    });
    bus.tap(c.resolve(S.Metrics).event);
    return bus;
  });
  c.factory(S.Subscribers, () => {
    const storage = c.resolve(S.Data);
    return new SubscriberFeeds({
      log: storage.events, state: storage.state, bus: c.resolve(S.Bus), clock: clock(), logger: logger('subscribers'), liveOnly: c.resolve(S.Cluster) !== undefined,
    });
  });
  c.factory(S.Media, () => {
    const { media, allowPrivateUrls, allowPrivateProxies } = config();
    return new MediaResolver({ maxBytes: media.maxBytes, timeoutMs: media.timeoutMs, allowPrivateUrls, allowPrivateProxies });
  });
  c.factory(S.Policies, () => new PacingPolicies(c.resolve(S.Data), drivers(), config().queue.maxQueued, clock()));
  c.factory(S.Pacer, () => new Pacer());
  c.factory(S.Worker, () => {
    const cluster = c.resolve(S.Cluster);
    return new OutboundWorker({
      storage: c.resolve(S.Data), registry: c.resolve(S.Registry), clock: clock(), logger: logger('outbound'), policies: c.resolve(S.Policies),
      pacer: c.resolve(S.Pacer), bus: c.resolve(S.Bus), metrics: c.resolve(S.Metrics), options: config().queue,
      pending: pending(), owns: cluster ? (instance) => cluster.node.fence(instance) !== undefined : undefined,
    });
  });
  c.factory(S.Queue, () => {
    const { enabled, leaseMs } = config().queue;
    if (!enabled) return undefined;
    return new SendQueue({
      storage: c.resolve(S.Data), clock: clock(), policies: c.resolve(S.Policies), pacer: c.resolve(S.Pacer), worker: c.resolve(S.Worker), leaseMs,
      pending: pending(),
    });
  });
  c.factory(S.Pipeline, () => new SendPipeline(c.resolve(S.Data), c.resolve(S.Media), c.resolve(S.Bus), c.resolve(S.Metrics), c.resolve(S.Queue)));
  c.factory(Tokens.Sends, () => hostSends(c), { composed: true });
  c.factory(S.Restorer, () => new InstanceRestorer({
    storage: c.resolve(S.Data), registry: c.resolve(S.Registry), drivers: drivers(), config: config().restore, logger: logger(), clock: clock(),
  }));
}

/** {@link HostSends} over the server's send pipeline: the path of `POST /{key}/message/text`, its body checks included. */
function hostSends(c: HostContainer): HostSends {
  const registry = c.resolve(S.Registry);
  const pipeline = c.resolve(S.Pipeline);
  return {
    async text(instanceId, to, text) {
      if (typeof to !== 'string' || !to.trim()) throw new ValidationError('to must be a non-blank address');
      if (typeof text !== 'string' || !text.length || text.length > MESSAGE_LIMITS.text) throw new ValidationError(`text must be 1 to ${MESSAGE_LIMITS.text} characters`);
      return pipeline.send(await registry.byIdOrThrow(instanceId), 'text', { to, text });
    },
  };
}
