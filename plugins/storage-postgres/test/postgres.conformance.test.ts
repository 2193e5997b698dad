import { before, describe } from 'node:test';
import { describeStorageConformance, type StorageHarness } from '@parley/testkit';
import type { Clock, Storage } from '@parley/core';
import { PostgresStorage } from '../src/index.js';
import { createTestDatabase, postgresUrlOrSkip, type TestDatabase } from './pg-env.js';

for (const groupCommit of [false, true]) describe(`@parley/storage-postgres conformance${groupCommit ? ', group commit' : ''}`, () => {
  const serverUrl = postgresUrlOrSkip('postgres storage conformance');
  if (!serverUrl) return;
  // One database for the run, one schema per storage: each test's storage starts empty.
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase(serverUrl, groupCommit ? 'conformance_gc' : 'conformance');
  });
  const schemas = new WeakMap<Storage, string>();
  let created = 0;
  const open = (schema: string, clock?: Clock): Storage => {
    const storage = new PostgresStorage({ url: database.url, schema, poolSize: 4, groupCommit }, undefined, clock);
    schemas.set(storage, schema);
    return storage;
  };

  const harness: StorageHarness = {
    create: async (clock) => open(`s${created++}`, clock),
    reopen: async (previous) => open(schemas.get(previous)!),
    cleanup: () => database.drop(),
  };
  describeStorageConformance(groupCommit ? 'postgres-group-commit' : 'postgres', harness);
});
