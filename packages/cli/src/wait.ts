import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { integer } from './command-kit.js';
import { CliError, ExitCode } from './exit-codes.js';
import type { CliContext } from './settings.js';

/** How long `--wait` waits unless `--timeout` says otherwise. */
export const WAIT_TIMEOUT_S = 120;

/** How often `--wait` looks again. */
export const WAIT_POLL_MS = 500;

/** The options {@link addWaitOptions} adds to a command. */
export interface WaitOptions {
  wait?: boolean;
  /** Seconds. */
  timeout: number;
}

/** Adds `--wait` (until `goal`) and its bound `--timeout <seconds>` to a command. */
export function addWaitOptions(command: Command, goal: string): Command {
  return command
    .option('--wait', `wait until ${goal}`)
    .option('--timeout <seconds>', `with --wait: give up (exit 6) after this long`, integer(1, 86_400), WAIT_TIMEOUT_S);
}

/** One look at the server: `undefined` once the goal is reached, else a line saying where things stand. */
export type Look = () => Promise<string | undefined>;

/**
 * Looks every {@link WAIT_POLL_MS} until `look` says the goal is reached. Each new progress line is
 * printed on a terminal (not with `--json`, nor in a pipe). After `timeoutS` seconds it gives up with
 * exit 6 ({@link ExitCode.notReached}), naming the goal (`until <goal>`) and the last progress.
 */
export async function waitFor(ctx: Pick<CliContext, 'json'>, timeoutS: number, goal: string, look: Look): Promise<void> {
  const deadline = performance.now() + timeoutS * 1000;
  const show = process.stdout.isTTY && !ctx.json;
  let shown: string | undefined;
  for (;;) {
    const progress = await look();
    if (progress === undefined) return;
    if (show && progress !== shown) process.stdout.write(`${progress}\n`);
    shown = progress;
    const left = deadline - performance.now();
    if (left <= 0) throw new CliError(`gave up after ${timeoutS} s waiting until ${goal} (${progress})`, ExitCode.notReached);
    await sleep(Math.min(WAIT_POLL_MS, left));
  }
}
