import { randomBytes } from 'node:crypto';
import { serviceUrlOrSkip } from '@parley/testkit';

/** The Redis the tests use (REDIS_URL), or undefined after a loud skip (a failure under PARLEY_REQUIRE_SERVICES=1). */
export function redisUrlOrSkip(suite: string): string | undefined {
  return serviceUrlOrSkip('REDIS_URL', suite);
}

/** A key prefix no other run uses, so tests never touch other data in the shared Redis. */
export function uniquePrefix(label: string): string {
  return `parley-test:${label}:${process.pid}-${randomBytes(4).toString('hex')}:`;
}

export { deleteKeys } from '../src/testing/index.js';
