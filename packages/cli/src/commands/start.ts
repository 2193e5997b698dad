import { Command } from 'commander';
import { CliError, ExitCode } from '../exit-codes.js';

/**
 * `parley start`: runs the server in this process exactly as `npm start` does — configuration from
 * the environment and `PARLEY_CONFIG`, the banner, a graceful stop on SIGTERM/SIGINT. `@parley/server`
 * is an optional peer of this package (a CLI that only manages a remote server does not need it), so
 * it is loaded only here.
 */
export function startCommand(): Command {
  return new Command('start').description('start the Parley server in the foreground (configured by PARLEY_CONFIG and the environment; see the README)')
    .action(async () => {
      let server: typeof import('@parley/server');
      try {
        server = await import('@parley/server');
      } catch (err) {
        if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
        throw new CliError('parley start needs the server: install @parley/server beside @parley/cli (npm install @parley/server)', ExitCode.failed);
      }
      await server.runServerProcess();
    });
}
