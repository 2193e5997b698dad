export { default } from './postgres.plugin.js';
export { PostgresStorage } from './postgres.storage.js';
export { postgresOptionsSchema, resolvePostgresOptions, type PostgresStorageOptions, type ResolvedPostgresOptions } from './postgres.options.js';
export { SCHEMA_VERSION } from './migrations.js';
