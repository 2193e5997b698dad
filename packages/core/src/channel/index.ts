export * from './adapter.js';
export * from './events.js';
export * from './directory.js';
