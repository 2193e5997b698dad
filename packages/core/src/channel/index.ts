export * from './adapter.js';
export * from './events.js';
