import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database created for one test run or benchmark, and how to drop it. */
export interface TestDatabase {
  /** `serverUrl` with the new database's name as its path. */
  url: string;
  name: string;
  /** Drops the database (and whatever connections are left on it). */
  drop(): Promise<void>;
}

/**
 * Creates an empty database named `parley_<label>_<pid>_<random>` on the PostgreSQL at `serverUrl`: tests and
 * benchmarks share the machine's server and never touch another database. For test suites and
 * benchmarks (`@parley/storage-postgres/testing`).
 */
export async function createTestDatabase(serverUrl: string, label: string): Promise<TestDatabase> {
  if (!/^[a-z0-9_]{1,20}$/.test(label)) throw new Error(`test database label ${label} must be 1 to 20 of [a-z0-9_]`);
  const name = `parley_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
  // From template0, which nobody connects to: copying template1 fails while another client is connected to it.
  await admin(serverUrl, `CREATE DATABASE ${name} TEMPLATE template0`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    // WITH (FORCE) (PostgreSQL 13+) ends connections a crashed server process left open.
    drop: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
