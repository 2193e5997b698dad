/**
 * CPU profiles of chosen stretches of a bench run (not of its set-up): with `BENCH_WEBHOOKS_PROFILE=<dir>`,
 * {@link profiled} records `fn` with the inspector's sampling profiler and writes `<dir>/<name>.cpuprofile`
 * (Chrome DevTools' format; `node bench/dist/webhooks/profile-summary.js <file>` lists its top items).
 * Without it, `fn` just runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

const DIR = process.env.BENCH_WEBHOOKS_PROFILE;

/** Runs `fn`, profiled into `<BENCH_WEBHOOKS_PROFILE>/<name>.cpuprofile` when that is set. */
export async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!DIR) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    mkdirSync(DIR, { recursive: true });
    writeFileSync(join(DIR, `${name}.cpuprofile`), JSON.stringify(profile));
  }
}
