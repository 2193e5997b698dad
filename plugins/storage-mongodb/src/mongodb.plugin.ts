import { defineStoragePlugin } from '@parley/core';
import { MongoStorage } from './mongodb.storage.js';
import { mongoOptionsSchema, type MongoStorageOptions } from './mongodb.options.js';

/** `@parley/storage-mongodb`: registers {@link MongoStorage} as the server's storage. */
export default defineStoragePlugin<MongoStorageOptions>({
  name: '@parley/storage-mongodb',
  optionsSchema: mongoOptionsSchema,
  create: ({ options, logger, clock }) => new MongoStorage(options, logger.child({ storage: 'mongodb' }), clock),
});
