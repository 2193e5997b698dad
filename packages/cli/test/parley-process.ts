import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
/** The `parley` executable as installed: @parley/cli's `bin`. */
export const PARLEY_BIN = join(dirname(require.resolve('@parley/cli')), 'bin.js');

/** A running `parley`. */
export interface ParleyProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `parley <args>` with only PATH, HOME and the given variables (no PARLEY_* of the test's own
 * environment), in `cwd` (a directory without ./data unless a test puts one there).
 */
export function spawnParley(args: readonly string[], options: { env?: Record<string, string>; cwd: string }): ParleyProcess {
  const child = spawn(process.execPath, [PARLEY_BIN, ...args], {
    cwd: options.cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs `parley <args>` to its end (killed after `timeoutMs`). */
export async function runParley(args: readonly string[], options: { env?: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawnParley(args, options);
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** Polls `check` every 25 ms until it answers; fails with the process's output when it exits first or after `timeoutMs`. */
export async function until<T>(check: () => T | undefined, what: string, proc: ParleyProcess, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let exit: unknown;
  void proc.exited.then((status) => (exit = status));
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    const output = `\nstdout: ${proc.stdout()}\nstderr: ${proc.stderr()}`;
    if (exit) throw new Error(`parley exited (${JSON.stringify(exit)}) before ${what}${output}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${output}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
