import { join } from 'node:path';
import { defineStoragePlugin } from '@parley/core';
import { SqliteStorage } from './sqlite.storage.js';

/** Options of the SQLite storage plugin. */
export interface SqliteStoragePluginOptions {
  /** Database file. Default: `<PARLEY_DATA_DIR>/parley.db`. */
  path?: string;
  /** Checkpoint the WAL from a worker thread instead of inside commits (default true). */
  backgroundCheckpoints?: boolean;
  /** Check the whole file for damage (`PRAGMA quick_check`) at start (default true). */
  integrityCheck?: boolean;
}

/** The embedded SQLite storage back end. */
export default defineStoragePlugin<SqliteStoragePluginOptions>({
  name: '@parley/storage-sqlite',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { path: { type: 'string', minLength: 1 }, backgroundCheckpoints: { type: 'boolean' }, integrityCheck: { type: 'boolean' } },
  },
  create: ({ options, host, logger, clock }) => new SqliteStorage({
    file: options.path ?? join(host.dataDir, 'parley.db'),
    logger: logger.child({ storage: 'sqlite' }), backgroundCheckpoints: options.backgroundCheckpoints, clock,
    integrityCheck: options.integrityCheck,
  }),
});
