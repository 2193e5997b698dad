import type { ServerContext } from '../app/server-context.js';
import type { RouteDefinition } from '../http/route.js';
import { adminRoutes } from './admin.routes.js';
import { chatRoutes } from './chat.routes.js';
import { healthRoutes } from './health.routes.js';
import { instanceRoutes } from './instance.routes.js';
import { messageRoutes } from './message.routes.js';
import { webhookRoutes } from './webhook.routes.js';

/** Every REST route of the server, by family. */
export function allRoutes(ctx: ServerContext, isShuttingDown: () => boolean): RouteDefinition[] {
  return [
    ...healthRoutes(ctx, isShuttingDown),
    ...adminRoutes(ctx),
    ...instanceRoutes(ctx),
    ...webhookRoutes(ctx),
    ...messageRoutes(ctx),
    ...chatRoutes(ctx),
  ];
}
