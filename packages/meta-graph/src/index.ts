/**
 * @parley/meta-graph — what the Instagram and Messenger channels share: the Graph API client, the
 * webhook signature verifier, inbound/outbound mapping, the adapter, the webhook routes and the
 * driver factory. A channel plugin declares its differences as a {@link MetaChannelProfile}.
 */
export * from './adapter/meta-adapter.js';
export * from './channel-profile.js';
export * from './driver/meta-driver.js';
export * from './graph/graph-client.js';
export * from './graph/graph-error.js';
export * from './inbound/dedup-window.js';
export * from './inbound/inbound-record.js';
export * from './inbound/map-messaging.js';
export * from './inbound/media-download.js';
export * from './inbound/media-info.js';
export * from './inbound/profile-cache.js';
export * from './inbound/webhook-payload.js';
export * from './link/link-account.js';
export * from './options.js';
export * from './outbound/meta-messaging.js';
export * from './outbound/outgoing-message.js';
export * from './outbound/outgoing-record.js';
export * from './plugin/meta-channel-plugin.js';
export * from './security/redact.js';
export * from './security/signature.js';
export * from './webhook/webhook-routes.js';
