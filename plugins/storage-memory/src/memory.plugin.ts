import { definePlugin } from '@parley/core';
import { MemoryStorage } from './memory.storage.js';

/** The in-memory storage back end. It takes no options. */
export default definePlugin<Record<string, never>>({
  name: '@parley/storage-memory',
  kind: 'storage',
  provides: { storage: true },
  coreVersion: '^0.1.0',
  optionsSchema: { type: 'object', additionalProperties: false, properties: {} },
  register({ storage, clock }) {
    storage.set(new MemoryStorage(clock));
  },
});
