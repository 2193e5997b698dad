export * from './account.js';
export * from './channel-name.js';
export * from './instance.js';
export * from './message.js';
export * from './resources.js';
export * from './outgoing.js';
export * from './status-stories.js';
export * from './record-message.js';
