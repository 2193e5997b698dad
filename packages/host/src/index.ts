/**
 * @parley/host — machinery of the host process that plugins do not need: the claim pump that drains the
 * durable queues, bounded retries, the fenced storage view a cluster node gives an instance, the
 * storage view whose media lives in a media store, and the storage composed of a record store and an outbox
 * that two plugins provide,
 * the connect-time SSRF checks of the webhook sender and the owner-only data directory. The contracts these serve stay in `@parley/core`.
 */
export * from './bounded-retry.js';
export * from './claim-pump.js';
export * from './compose-storage.js';
export * from './connect-guard.js';
export * from './fenced-storage.js';
export * from './media-store.js';
export * from './private-dir.js';
