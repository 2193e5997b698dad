export { default, type SqliteStoragePluginOptions } from './sqlite.plugin.js';
export { SqliteStorage, type SqliteStorageOptions } from './sqlite.storage.js';
export { SCHEMA_VERSION } from './migrations.js';
