/**
 * @parley/webhooks — the webhook engine: routing by instance settings (spec 2.2), rendering through
 * the format plugins, durable signed delivery with retries, dead letters and statistics; the same
 * outbox and worker feed the event sinks (brokers).
 */
export { counterpartNumbers, isAllowedNumber, parseAllowNumber, type AllowedNumbers } from './allow-number.js';
export { deliveryId } from './delivery-id.js';
export type { AttemptOutcome, DeliveryObserver } from './delivery-observer.js';
export type { AttemptResult, DeliveryTransport } from './delivery-transport.js';
export { AttemptTimeoutError, HttpSender, type HttpAnswer } from './http-sender.js';
export { parseRetryAfter, RetryPolicy } from './retry-policy.js';
export type { CurrentRedelivery } from './redeliver-current.js';
export { formatNames, routeUrl } from './routing.js';
export { SinkRouter, type SinkView } from './sink-router.js';
export { instanceOfPartition, sinkDeliveryId, sinkPartition, sinkTarget } from './sink-target.js';
export { WEBHOOK_URL_FIELDS } from './settings-validation.js';
export { newWebhookSecret, standardWebhookHeaders } from './signing.js';
export { WebhookEngine, type WebhookEngineDeps } from './webhook.engine.js';
export {
  defaultWebhookOptions, resolveWebhookOptions, webhookOptionsSchema, type HousekeepingOptions, type RetryOptions, type WebhookOptions,
  type WebhookOptionsInput,
} from './webhook-options.js';
