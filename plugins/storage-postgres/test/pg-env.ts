import { serviceUrlOrSkip } from '@parley/testkit';

/** The PostgreSQL server the tests use (DATABASE_URL), or undefined after a loud skip (a failure under PARLEY_REQUIRE_SERVICES=1). */
export function postgresUrlOrSkip(suite: string): string | undefined {
  return serviceUrlOrSkip('DATABASE_URL', suite);
}

export { createTestDatabase, type TestDatabase } from '../src/testing/index.js';
