import pg from 'pg';
import { serviceUrlOrSkip } from '@parley/testkit';
import { PostgresStorage, type PostgresStorageOptions } from '../src/index.js';
import { createTestDatabase } from '../src/testing/index.js';

/** The PostgreSQL server the tests use (DATABASE_URL), or undefined after a loud skip (a failure under PARLEY_REQUIRE_SERVICES=1). */
export function postgresUrlOrSkip(suite: string): string | undefined {
  return serviceUrlOrSkip('DATABASE_URL', suite);
}

export { createTestDatabase, type TestDatabase } from '../src/testing/index.js';

/** A {@link PostgresStorage} on a database of its own, opened, with an admin client on that database. */
export interface StorageUnderTest {
  storage: PostgresStorage;
  admin: pg.Client;
  /** The database's URL. */
  url: string;
  /** When the storage told its `onDiscard` listeners (Date.now()), in order. */
  discards: number[];
  /** Closes the storage and the client, and drops the database. */
  close(): Promise<void>;
}

/** Opens a {@link StorageUnderTest} in a database named after `name` (a pool of 4, 3 s bounds, unless `options` says otherwise). */
export async function openTestStorage(serverUrl: string, name: string, options: PostgresStorageOptions): Promise<StorageUnderTest> {
  const database = await createTestDatabase(serverUrl, name);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const storage = new PostgresStorage({ poolSize: 4, commandTimeoutMs: 3_000, ...options, url: database.url });
  await storage.init();
  const discards: number[] = [];
  storage.onDiscard(() => discards.push(Date.now()));
  return {
    storage, admin, discards, url: database.url,
    close: async () => {
      await storage.close();
      await admin.end();
      await database.drop();
    },
  };
}

/** Connection checkouts of `storage`'s pools while `work` runs: one per statement (every statement checks a connection out). */
export async function statementsOf(storage: PostgresStorage, work: () => Promise<unknown>): Promise<number> {
  const { pool, relaxed } = (storage as unknown as { db: { pool: pg.Pool; relaxed: pg.Pool | null } }).db;
  const pools = [pool, relaxed].filter((each): each is pg.Pool => each !== null);
  let statements = 0;
  const count = () => void statements++;
  for (const each of pools) each.on('acquire', count);
  try {
    await work();
  } finally {
    for (const each of pools) each.off('acquire', count);
  }
  return statements;
}
