import { join } from 'node:path';
import { definePlugin, Tokens } from '@parley/core';
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
  coreVersion: '^0.1.0',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { path: { type: 'string', minLength: 1 }, backgroundCheckpoints: { type: 'boolean' } },
  },
  register({ container, options, host, logger, clock }) {
    const file = options.path ?? join(host.dataDir, 'parley.db');
    container.register(Tokens.Storage, { useValue: new SqliteStorage({ file, logger: logger.child({ storage: 'sqlite' }), backgroundCheckpoints: options.backgroundCheckpoints, clock }) });
  },
});
