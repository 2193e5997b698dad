export * from './sink.js';
export * from './sink-options.js';
export * from './sink-connection.js';
export * from './sink-batch.js';
