import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawnNode, type NodeProcess } from '@parley/testkit';

const require = createRequire(import.meta.url);
/** The `parley` executable as installed: @parley/cli's `bin` (`bin/parley.js`, beside `dist/src/index.js`'s `dist`). */
export const PARLEY_BIN = join(dirname(require.resolve('@parley/cli')), '..', '..', 'bin', 'parley.js');

/**
 * Spawns `parley <args>` with only PATH and the given variables (no PARLEY_* of the test's own
 * environment), in `cwd` (a directory without ./data unless a test puts one there).
 */
export function spawnParley(args: readonly string[], options: { env?: Record<string, string>; cwd: string }): NodeProcess {
  return spawnNode(PARLEY_BIN, args, options);
}

/** Runs `parley <args>` to its end (killed after `timeoutMs`). */
export async function runParley(args: readonly string[], options: { env?: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawnParley(args, options);
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}
