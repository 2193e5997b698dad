import { spawn, type ChildProcess } from 'node:child_process';

/** A Node script running as a child process, its output collected. */
export interface NodeProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once the process exited and its output streams closed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `node <script> <args>` with only `PATH` and the given variables in its environment (none of
 * the test's own), stdin closed, stdout and stderr collected as text.
 */
export function spawnNode(script: string, args: readonly string[] = [], options: { env?: Record<string, string>; cwd?: string } = {}): NodeProcess {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Polls `check` every 25 ms until it answers something; fails at once, with the process's output, if
 * the process exits first, and after `timeoutMs`.
 */
export async function untilProcess<T>(check: () => T | undefined, what: string, proc: NodeProcess, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let exit: unknown;
  void proc.exited.then((status) => (exit = status));
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    const output = `\nstdout: ${proc.stdout()}\nstderr: ${proc.stderr()}`;
    if (exit) throw new Error(`the process exited (${JSON.stringify(exit)}) before ${what}${output}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${output}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
