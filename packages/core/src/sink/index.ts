export * from './sink.js';
export * from './sink-options.js';
