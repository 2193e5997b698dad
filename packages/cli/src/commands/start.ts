import { Command } from 'commander';
import { serverModule } from '../server-module.js';

/**
 * `parley start`: runs the server in this process exactly as `npm start` does — `@parley/distribution`'s
 * server with its plugins, configuration from the environment and `PARLEY_CONFIG`, the banner, a graceful
 * stop on SIGTERM/SIGINT.
 */
export function startCommand(): Command {
  return new Command('start').description('start the Parley server in the foreground (configured by PARLEY_CONFIG and the environment; see the README)')
    .action(async () => {
      await (await serverModule('start')).runParley();
    });
}
