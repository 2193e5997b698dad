import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { clusterCommand } from './commands/cluster.js';
import { connectCommand } from './commands/connect.js';
import { instancesCommand } from './commands/instances.js';
import { sendCommand } from './commands/send.js';
import { startCommand } from './commands/start.js';
import { storageCommand } from './commands/storage.js';
import { webhooksCommand } from './commands/webhooks.js';
import { describeFailure, ExitCode, type ExitCodeValue } from './exit-codes.js';
import { integer } from './command-kit.js';
import { DEFAULT_URL, REQUEST_TIMEOUT_S, serverUrl } from './settings.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const EXIT_CODES = `Exit codes:
  0  done
  1  the server refused or failed the request (validation, conflict, 5xx…)
  2  usage error: unknown command or flag, missing or malformed argument
  3  authentication: admin token missing or wrong, or too many failed attempts
  4  not found: no such instance (or resource)
  5  server unreachable: connection refused, DNS, time-out, not a Parley answer
  6  connect: not linked before --timeout, or the channel stopped trying;
     --wait (cluster drain, instances move): not done before --timeout`;

/** The `parley` command tree (commander), with every error turned into an exception rather than an exit. */
export function buildProgram(): Command {
  const program = new Command('parley')
    .description('Parley from the command line: run the server, manage instances, link them by QR code, send, inspect webhooks, operate a cluster, copy storage.')
    .version(version, '-V, --version')
    .option('--url <url>', `server URL (env PARLEY_URL; default ${DEFAULT_URL})`)
    .option('--token <token>', 'admin token (env PARLEY_ADMIN_TOKEN; default: ./data/admin-token for a server on this machine)')
    .option('--json', 'machine-readable output: one JSON document (connect: one JSON event per line); errors as JSON on stderr')
    .option('--request-timeout <seconds>', `time one HTTP request may take before the server counts as unreachable (default ${REQUEST_TIMEOUT_S})`, integer(1, 3600))
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', `\n${EXIT_CODES}`)
    .exitOverride();
  program.addCommand(startCommand());
  program.addCommand(instancesCommand());
  program.addCommand(connectCommand());
  program.addCommand(sendCommand());
  program.addCommand(webhooksCommand());
  program.addCommand(clusterCommand());
  program.addCommand(storageCommand());
  // Sub-commands added with addCommand do not inherit these settings: set them on the whole tree.
  const apply = (command: Command) => {
    command.exitOverride().configureHelp({ showGlobalOptions: true }).showHelpAfterError('(add --help for usage)');
    command.commands.forEach(apply);
  };
  program.commands.forEach(apply);
  return program;
}

/** Runs `parley` with these arguments (without `node` and the script); resolves to the exit status. */
export async function runCli(argv: readonly string[]): Promise<ExitCodeValue> {
  const program = buildProgram();
  const json = argv.includes('--json');
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version were printed by commander (exit 0); its own errors too, as usage errors.
      return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    let url = DEFAULT_URL;
    try {
      url = serverUrl(program.opts(), process.env).href.replace(/\/+$/, '');
    } catch {
      // the URL itself was the usage error
    }
    const { code, message, api } = describeFailure(err, url);
    process.stderr.write(json ? `${JSON.stringify({ error: { message, exitCode: code, ...api } })}\n` : `parley: ${message}\n`);
    return code;
  }
}
