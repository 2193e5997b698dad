export { default } from './mongodb.plugin.js';
export { MongoStorage } from './mongodb.storage.js';
export { mongoOptionsSchema, resolveMongoOptions, type MongoStorageOptions, type ResolvedMongoOptions } from './mongodb.options.js';
export { connectExternalDatabase, type ExternalDatabaseOptions, type ExternalMessageStore } from './external-database.js';
export { assertMongoTargetsAllowed, validateDbName, validateMongoUri } from './mongo-uri.js';
export * from './mongo-mappings.js';
