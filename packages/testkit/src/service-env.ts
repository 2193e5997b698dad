import { it } from 'node:test';

/**
 * The URL of an external service a suite needs (`REDIS_URL`, `MONGODB_URL`), or undefined after
 * registering one test that says loudly why the suite is skipped — or that fails when
 * `PARLEY_REQUIRE_SERVICES=1` demands the service (CI). Pass `requirable: false` for a service that
 * cannot exist on the machines CI runs on (MongoDB): it then always skips.
 */
export function serviceUrlOrSkip(envVar: string, suite: string, options: { requirable?: boolean; example?: string } = {}): string | undefined {
  const url = process.env[envVar];
  if (url) return url;
  it(`${suite} (needs ${envVar})`, (t) => {
    if (options.requirable !== false && process.env.PARLEY_REQUIRE_SERVICES === '1') {
      throw new Error(`${envVar} is unset but PARLEY_REQUIRE_SERVICES=1 requires it`);
    }
    console.warn(`SKIPPED ${suite}: set ${envVar}${options.example ? ` (for example ${options.example})` : ''} to run it`);
    t.skip(`${envVar} is unset`);
  });
  return undefined;
}
