import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawnNode } from '@parley/testkit';

const require = createRequire(import.meta.url);
/** The `parley` executable as installed: @parley/cli's `bin`. */
export const PARLEY_BIN = join(dirname(require.resolve('@parley/cli')), '..', '..', 'bin', 'parley.js');

/** The S3 credentials a test's S3 server put in the environment (`S3TestServer.start`), for a media plugin of the command's. */
function s3Credentials(): Record<string, string> {
  const { AWS_ACCESS_KEY_ID: id, AWS_SECRET_ACCESS_KEY: secret } = process.env;
  return id && secret ? { AWS_ACCESS_KEY_ID: id, AWS_SECRET_ACCESS_KEY: secret } : {};
}

/** Runs `parley <args>` in `cwd` to its end (killed after two minutes). */
export async function runParley(cwd: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawnNode(PARLEY_BIN, args, { cwd, env: { LOG_LEVEL: 'warn', ...s3Credentials() } });
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 120_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}
