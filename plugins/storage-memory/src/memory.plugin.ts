import { definePlugin, Tokens } from '@parley/core';
import { MemoryStorage } from './memory.storage.js';

/** The in-memory storage back end. It takes no options. */
export default definePlugin<Record<string, never>>({
  name: '@parley/storage-memory',
  kind: 'storage',
  coreVersion: '^0.1.0',
  optionsSchema: { type: 'object', additionalProperties: false, properties: {} },
  register({ container, clock }) {
    container.register(Tokens.Storage, { useValue: new MemoryStorage(clock) });
  },
});
