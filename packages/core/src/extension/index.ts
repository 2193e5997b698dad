export * from './event-subscriber.js';
export * from './host-sends.js';
