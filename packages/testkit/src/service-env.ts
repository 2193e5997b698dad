import { spawnSync } from 'node:child_process';
import { it } from './test-runner.js';

/**
 * Where the services the suites need listen on a developer's machine by default (and on CI's):
 * a suite whose variable is unset uses the address when something answers there.
 */
export const LOCAL_SERVICES: Readonly<Record<string, string>> = Object.freeze({
  REDIS_URL: 'redis://127.0.0.1:6379',
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  NATS_URL: 'nats://127.0.0.1:4222',
  MONGODB_URL: 'mongodb://127.0.0.1:27017',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
});

/** How long the probe of a local address waits for the connection (loopback answers at once or refuses). */
const PROBE_TIMEOUT_MS = 1000;

/**
 * Whether a TCP connection to the URL's host and port opens. Synchronous (a short child process) because
 * suites decide whether to declare their tests while node:test collects them.
 */
export function answers(url: string): boolean {
  const { hostname, port } = new URL(url);
  if (!port) throw new Error(`${url} names no port`);
  const probe = `const s = require('node:net').connect(${Number(port)}, ${JSON.stringify(hostname.replace(/^\[|\]$/g, ''))});
s.setTimeout(${PROBE_TIMEOUT_MS}, () => process.exit(1));
s.on('connect', () => process.exit(0));
s.on('error', () => process.exit(1));`;
  return spawnSync(process.execPath, ['-e', probe], { stdio: 'ignore', timeout: PROBE_TIMEOUT_MS * 5 }).status === 0;
}

/** Options of {@link serviceUrlOrSkip}. */
export interface ServiceOptions {
  /**
   * `false` for a service that cannot exist on the machines CI runs on (MongoDB): a suite that finds
   * none then skips even under `PARLEY_REQUIRE_SERVICES=1`.
   */
  requirable?: boolean;
  /** The local address tried when the variable is unset; default {@link LOCAL_SERVICES}'s. */
  local?: string;
}

/**
 * The URL of an external service a suite needs: the variable's (`REDIS_URL`, `AMQP_URL`, `NATS_URL`,
 * `MONGODB_URL`, `DATABASE_URL` for PostgreSQL), else the service's standard local address when something answers there (the
 * variable is then set to it, for the servers the suite starts and for later suites of the file).
 * Otherwise undefined, after registering one test that says loudly why the suite is skipped — or
 * that fails when `PARLEY_REQUIRE_SERVICES=1` demands the service (CI).
 */
export function serviceUrlOrSkip(envVar: string, suite: string, options: ServiceOptions = {}): string | undefined {
  const set = process.env[envVar];
  if (set) return set;
  const local = options.local ?? LOCAL_SERVICES[envVar];
  if (local && answers(local)) {
    process.env[envVar] = local;
    return local;
  }
  const reason = local ? `${envVar} is unset and nothing answers at ${local}` : `${envVar} is unset`;
  it(`${suite} (needs ${envVar})`, (t) => {
    if (options.requirable !== false && process.env.PARLEY_REQUIRE_SERVICES === '1') {
      throw new Error(`${reason}, but PARLEY_REQUIRE_SERVICES=1 requires it`);
    }
    console.warn(`SKIPPED ${suite}: ${reason}; start the service there or set ${envVar} to run it`);
    t.skip(reason);
  });
  return undefined;
}
