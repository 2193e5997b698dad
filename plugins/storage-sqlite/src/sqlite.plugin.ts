import { join } from 'node:path';
import { definePlugin } from '@parley/core';
import { SqliteStorage } from './sqlite.storage.js';

/** Options of the SQLite storage plugin. */
export interface SqliteStoragePluginOptions {
  /** Database file. Default: `<PARLEY_DATA_DIR>/parley.db`. */
  path?: string;
  /** Checkpoint the WAL from a worker thread instead of inside commits (default true). */
  backgroundCheckpoints?: boolean;
}

/** The embedded SQLite storage back end. */
export default definePlugin<SqliteStoragePluginOptions>({
  name: '@parley/storage-sqlite',
  kind: 'storage',
  provides: { storage: true },
  coreVersion: '^0.1.0',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { path: { type: 'string', minLength: 1 }, backgroundCheckpoints: { type: 'boolean' } },
  },
  register({ storage, options, host, logger, clock }) {
    const file = options.path ?? join(host.dataDir, 'parley.db');
    storage.set(new SqliteStorage({ file, logger: logger.child({ storage: 'sqlite' }), backgroundCheckpoints: options.backgroundCheckpoints, clock }));
  },
});
