import { WebhookEngine, type WebhookOptions } from '@parley/webhooks';
import { channelDirectory, ValidationError, type ChannelEvent, type InstanceRecord } from '@parley/core';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import type { WebhookService } from '../services/webhook-service.js';
import type { ServerContext } from './server-context.js';

/** Builds the webhook engine of `@parley/webhooks` and adapts it to the server's event bus. */
export function createWebhookService(ctx: Omit<ServerContext, 'webhooks'>): WebhookService {
  const engine = new WebhookEngine({
    storage: ctx.storage,
    formats: [...ctx.formats.values()],
    logger: ctx.logger,
    clock: ctx.clock,
    host: ctx.host,
    channels: channelDirectory(ctx.drivers.values()),
    options: { serviceTag: ctx.config.serviceTag, ...ctx.config.webhooks } as Partial<WebhookOptions>,
  });
  return {
    name: 'webhooks',
    handle: (event: ChannelEvent, runtime: InstanceRuntime) => engine.handle(event, runtime.record),
    // The engine names fields as the settings spell them; the API names them from the body's root.
    validateSettings: (patch, root = 'body') => engine.validateSettings(patch).catch((err: unknown) => {
      throw err instanceof ValidationError ? new ValidationError(`${root}.${err.message}`, err.details) : err;
    }),
    stats: (id) => engine.stats(id),
    deadLetters: (id, page) => engine.deadLetters(id, page),
    redeliver: (id, ids) => engine.redeliver(id, ids),
    start: () => engine.start(),
    stop: () => engine.stop(),
    forget: (instance: InstanceRecord) => ctx.storage.deliveries.clear(instance.id),
  };
}
