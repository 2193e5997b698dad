export * from './cluster-store.js';
export * from './fence-errors.js';
export * from './fenced-storage.js';
