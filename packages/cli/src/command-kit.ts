import { InvalidArgumentError, type Command } from 'commander';
import { cliContext, type CliContext, type GlobalOptions } from './settings.js';

/**
 * A commander action that runs with the {@link CliContext} built from the global options: the handler
 * gets the context, the command's own options and its positional arguments.
 */
export function withContext<O extends object>(handler: (ctx: CliContext, options: O, ...args: string[]) => Promise<void>) {
  return async (...args: unknown[]): Promise<void> => {
    const command = args.at(-1) as Command;
    const ctx = cliContext(command.optsWithGlobals<GlobalOptions>());
    await handler(ctx, command.opts<O>(), ...(args.slice(0, -2) as string[]));
  };
}

/** An option parser for whole numbers in [min, max] (a usage error otherwise). */
export function integer(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    }
    return n;
  };
}
