import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { createClient } from 'redis';

/**
 * The Redis the tests use (REDIS_URL), or undefined after registering one test that says why the
 * Redis tests are skipped — or fails when PARLEY_REQUIRE_SERVICES=1 demands them.
 */
export function redisUrlOrSkip(suite: string): string | undefined {
  const url = process.env.REDIS_URL;
  if (url) return url;
  it(`${suite} (needs REDIS_URL)`, (t) => {
    if (process.env.PARLEY_REQUIRE_SERVICES === '1') throw new Error('REDIS_URL is unset but PARLEY_REQUIRE_SERVICES=1 requires Redis');
    console.warn(`SKIPPED ${suite}: set REDIS_URL (for example redis://127.0.0.1:6379) to run it`);
    t.skip('REDIS_URL is unset');
  });
  return undefined;
}

/** A key prefix no other run uses, so tests never touch other data in the shared Redis. */
export function uniquePrefix(label: string): string {
  return `parley-test:${label}:${process.pid}-${randomBytes(4).toString('hex')}:`;
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) await client.unlink(keys);
    }
  } finally {
    await client.close();
  }
}
