import { before, describe } from 'node:test';
import { describeClusterStoreConformance, type StorageHarness } from '@parley/testkit';
import { PostgresStorage } from '../src/index.js';
import { createTestDatabase, postgresUrlOrSkip, type TestDatabase } from './pg-env.js';

describe('@parley/storage-postgres cluster coordination', () => {
  const serverUrl = postgresUrlOrSkip('postgres cluster store');
  if (!serverUrl) return;
  // One database for the run, one schema per storage.
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase(serverUrl, 'cluster');
  });
  let created = 0;
  const harness: StorageHarness = {
    create: async (clock) => new PostgresStorage({ url: database.url, schema: `c${created++}`, poolSize: 4 }, undefined, clock),
    cleanup: () => database.drop(),
  };
  describeClusterStoreConformance('postgres', harness);
});
