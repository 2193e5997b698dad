import { CliError, ExitCode } from './exit-codes.js';

/**
 * `@parley/distribution` (the server with its plugins; it re-exports `@parley/server`), for the commands
 * that run server code in this process (`start`, `storage copy`). It is an optional peer of this package
 * (a CLI that only manages a remote server does not need it).
 */
export async function serverModule(command: string): Promise<typeof import('@parley/distribution')> {
  try {
    return await import('@parley/distribution');
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new CliError(`parley ${command} needs the server: install @parley/distribution beside @parley/cli (npm install @parley/distribution)`, ExitCode.failed);
  }
}
