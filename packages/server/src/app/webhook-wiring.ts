// TEMPORARY development bridge until @parley/webhooks exports WebhookEngine; replaced by
// /tmp/webhook-wiring.final.ts before any commit that claims webhooks.
import type { InstanceRecord } from '@parley/core';
import type { WebhookService } from '../services/webhook-service.js';
import type { ServerContext } from './server-context.js';

export function createWebhookService(ctx: Omit<ServerContext, 'webhooks'>): WebhookService {
  return {
    name: 'webhooks',
    handle: async () => undefined,
    validateSettings: async () => undefined,
    stats: (id) => ctx.storage.deliveries.stats(id),
    deadLetters: (id, page) => ctx.storage.deliveries.deadLetters(id, page),
    redeliver: (id, ids) => ctx.storage.deliveries.redeliver(id, ids),
    start: () => undefined,
    stop: async () => undefined,
    forget: (instance: InstanceRecord) => ctx.storage.deliveries.clear(instance.id),
  };
}
