import { defineStoragePlugin } from '@parley/core';
import { PostgresStorage } from './postgres.storage.js';
import { postgresOptionsSchema, type PostgresStorageOptions } from './postgres.options.js';

/** `@parley/storage-postgres`: registers {@link PostgresStorage} as the server's storage. */
export default defineStoragePlugin<PostgresStorageOptions>({
  name: '@parley/storage-postgres',
  optionsSchema: postgresOptionsSchema,
  create: ({ options, logger, clock }) => new PostgresStorage(options, logger.child({ storage: 'postgres' }), clock),
});
