import { definePlugin } from '@parley/core';
import { MongoStorage } from './mongodb.storage.js';
import { mongoOptionsSchema, type MongoStorageOptions } from './mongodb.options.js';

/** `@parley/storage-mongodb`: registers {@link MongoStorage} as the server's storage. */
export default definePlugin<MongoStorageOptions>({
  name: '@parley/storage-mongodb',
  kind: 'storage',
  provides: { storage: true },
  coreVersion: '^0.1.0',
  optionsSchema: mongoOptionsSchema,
  register({ storage: slot, options, logger, clock }) {
    const storage = new MongoStorage(options, logger.child({ storage: 'mongodb' }), clock);
    slot.set(storage);
  },
});
