import type { ServerContext } from '../app/server-context.js';
import { channelDirectory } from '@parley/core';
import type { RouteDefinition } from '../http/route.js';
import { bindChannelSlots } from '../schemas/channel-slots.js';
import { cloudApiRoutes } from '../cloud-api/cloud.routes.js';
import { actionRoutes } from './action.routes.js';
import { adminRoutes } from './admin.routes.js';
import { clusterRoutes } from './cluster.routes.js';
import { callRoutes } from './call.routes.js';
import { catalogRoutes } from './catalog.routes.js';
import { chatRoutes } from './chat.routes.js';
import { communityRoutes } from './community.routes.js';
import { externalDatabaseRoutes } from './external-db.routes.js';
import { groupRoutes } from './group.routes.js';
import { contactRoutes } from './contact.routes.js';
import { eventRoutes } from './events.routes.js';
import { healthRoutes } from './health.routes.js';
import { instanceRoutes } from './instance.routes.js';
import { labelRoutes } from './label.routes.js';
import { linkRoutes } from './link.routes.js';
import { messageMediaRoutes } from './media.routes.js';
import { messageRoutes } from './message.routes.js';
import { metricsRoutes } from './metrics.routes.js';
import { queueRoutes } from './queue.routes.js';
import { replyRoutes } from './reply.routes.js';
import { sinkRoutes } from './sink.routes.js';
import { statusRoutes } from './status.routes.js';
import { webhookRoutes } from './webhook.routes.js';

/** Every REST route of the server, by family, with the channel slots of their schemas bound to the registered drivers. */
export function allRoutes(ctx: ServerContext, isShuttingDown: () => boolean): RouteDefinition[] {
  return bindChannelSlots([
    ...healthRoutes(ctx, isShuttingDown),
    ...adminRoutes(ctx),
    ...clusterRoutes(ctx),
    ...metricsRoutes(ctx),
    ...instanceRoutes(ctx),
    ...linkRoutes(ctx),
    ...externalDatabaseRoutes(ctx),
    ...webhookRoutes(ctx),
    ...sinkRoutes(ctx),
    ...eventRoutes(ctx),
    ...messageRoutes(ctx),
    ...replyRoutes(ctx),
    ...queueRoutes(ctx),
    ...messageMediaRoutes(ctx),
    ...chatRoutes(ctx),
    ...callRoutes(ctx),
    ...labelRoutes(ctx),
    ...actionRoutes(ctx),
    ...contactRoutes(ctx),
    ...groupRoutes(ctx),
    ...communityRoutes(ctx),
    ...catalogRoutes(ctx),
    ...statusRoutes(ctx),
    ...cloudApiRoutes(ctx),
  ], channelDirectory(ctx.drivers.values()));
}
