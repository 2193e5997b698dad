/**
 * @parley/cli — the `parley` command. Programmatic entry points for embedding and tests; the command
 * itself is the package's `bin`.
 */
export { buildProgram, runCli } from './program.js';
export { CliError, ExitCode, describeFailure, type ExitCodeValue } from './exit-codes.js';
export { renderTerminalQr, type QrStyle } from './terminal-qr.js';
