import { spawn, type ChildProcess } from 'node:child_process';

/** A Node script running as a child process, its output collected. */
export interface NodeProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once the process exited and its output streams closed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The processes {@link spawnNode} started that have not closed yet. */
const running = new Set<NodeProcess>();

/**
 * Runs `node <script> <args>` with only `PATH` and the given variables in its environment (none of
 * the test's own), stdin closed, stdout and stderr collected as text. A test that fails before it
 * stops the process leaves it running, and its open pipes then keep the test file's process alive for
 * good: end the file with {@link killLeftovers}.
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
  const proc: NodeProcess = { child, stdout: () => out, stderr: () => err, exited };
  running.add(proc);
  void exited.then(() => running.delete(proc));
  return proc;
}

/**
 * Kills (SIGKILL) every process {@link spawnNode} started that is still running, and waits until
 * they closed: for an `after` hook, so that a failed test's process does not outlive its file.
 */
export async function killLeftovers(): Promise<void> {
  const left = [...running];
  for (const proc of left) proc.child.kill('SIGKILL');
  await Promise.all(left.map((proc) => proc.exited));
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
