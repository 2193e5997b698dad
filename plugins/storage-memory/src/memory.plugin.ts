import { defineStoragePlugin } from '@parley/core';
import { MemoryStorage } from './memory.storage.js';

/** The in-memory storage back end. It takes no options. */
export default defineStoragePlugin<Record<string, never>>({
  name: '@parley/storage-memory',
  optionsSchema: { type: 'object', additionalProperties: false, properties: {} },
  create: ({ clock }) => new MemoryStorage(clock),
});
