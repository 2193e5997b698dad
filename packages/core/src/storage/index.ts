export * from './codec.js';
export * from './delivery-queue.js';
export * from './external-data.js';
export * from './merge.js';
export * from './repositories.js';
export * from './storage.js';
export * from './storage-health.js';
export * from './rate-limit.js';
