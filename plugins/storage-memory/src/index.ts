export { default } from './memory.plugin.js';
export { MemoryStorage } from './memory.storage.js';
