import type { ChannelDriver, Clock, ExternalDataConnector, HostSettings, Logger, WebhookFormat } from '@parley/core';
import type { ParleyConfig } from '../config/config.js';
import type { EventBus } from '../events/event-bus.js';
import type { InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceDataRouter } from '../services/instance-data-router.js';
import type { MediaResolver } from '../services/media-resolver.js';
import type { MessagingService } from '../services/messaging-service.js';
import type { WebhookService } from '../services/webhook-service.js';

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
  messaging: MessagingService;
  webhooks: WebhookService;
  /** Server version (the @parley/server package version). */
  version: string;
}
