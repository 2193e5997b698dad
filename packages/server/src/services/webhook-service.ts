import type { DeadLetter, InstanceRecord, WebhookSettings, WebhookStats } from '@parley/core';
import type { EventSubscriber } from '../events/event-bus.js';

/** What the server needs of the webhook engine (`@parley/webhooks`). */
export interface WebhookService extends EventSubscriber {
  /**
   * Validates a settings change (URLs, format, allowNumber); throws ValidationError naming the field
   * under `root` (default `body`).
   */
  validateSettings(patch: Partial<WebhookSettings>, root?: string): Promise<void>;
  stats(instanceId: string): Promise<WebhookStats>;
  deadLetters(instanceId: string, page: { limit: number; offset: number }): Promise<{ items: DeadLetter[]; total: number }>;
  redeliver(instanceId: string, ids?: string[]): Promise<number>;
  start(): void;
  stop(): Promise<void>;
  /** Forgets an instance's queued deliveries (instance deletion). */
  forget(instance: InstanceRecord): Promise<void>;
}
