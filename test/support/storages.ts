import { serviceUrlOrSkip } from '@parley/testkit';

/**
 * `storages`, and `postgres` when DATABASE_URL is set or the local PostgreSQL answers; otherwise a loud
 * skip naming the variable (a failure under PARLEY_REQUIRE_SERVICES=1). For the core flows that run on
 * every durable back end.
 */
export function withPostgres<S extends 'memory' | 'sqlite' | 'redis'>(suite: string, storages: readonly S[]): (S | 'postgres')[] {
  return serviceUrlOrSkip('DATABASE_URL', `${suite} on PostgreSQL`) ? [...storages, 'postgres'] : [...storages];
}
