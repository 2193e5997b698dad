import { readFileSync } from 'node:fs';
import { isParleyError } from '@parley/core';
import { ConfigError, loadConfig, type ConfigDefaults } from '../config/config.js';
import { PluginError, type ModuleImporter } from '../plugins/plugin-host.js';
import { unsupportedNode } from '../node-version.js';
import { ParleyServer } from './parley-server.js';
import { printBanner } from './banner.js';

/**
 * A signal this soon after the one that started the shutdown is that same stop request delivered
 * twice, not an operator insisting: Ctrl-C in a terminal reaches every process of its group, and a
 * wrapper (a script's trap, a process manager) forwards a signal of its own at once.
 */
const REPEAT_WINDOW_MS = 1000;

/** What the distribution running the process supplies (`@parley/distribution`): its default plugins and its `import`. */
export interface ServerProcessOptions {
  defaults?: ConfigDefaults;
  importModule?: ModuleImporter;
}

async function start(options: ServerProcessOptions): Promise<void> {
  const { engines } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
  const unsupported = unsupportedNode(process.version, engines.node);
  if (unsupported) throw new ConfigError(unsupported);
  const config = loadConfig(process.env, {}, options.defaults);
  const server = await ParleyServer.create({ config, ...(options.importModule ? { importModule: options.importModule } : {}) });
  let stoppingSince: number | undefined;
  const stop = (signal: string) => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < REPEAT_WINDOW_MS) {
        server.context.logger.info({ signal }, 'signal repeated at once: already shutting down');
        return;
      }
      server.context.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stoppingSince = performance.now();
    server.context.logger.info({ signal }, 'shutting down');
    server.close().then(() => process.exit(0), (err: unknown) => {
      server.context.logger.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  };
  // Handlers first: a signal that arrives before them kills the process outright (no graceful
  // stop, no exit 0), and whoever read the banner may signal at once.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  const url = await server.listen();
  printBanner(server, url);
}

/**
 * Runs the server as this process's whole job (`npm start` and `parley start` through `@parley/distribution`): configuration from the
 * environment and `PARLEY_CONFIG`, the start-up banner on stdout, a graceful stop on SIGTERM/SIGINT
 * (exit 0; a second signal exits 1 at once, unless it came within {@link REPEAT_WINDOW_MS} of the first). A start-up failure is printed to stderr — a config or
 * plugin error as one line naming the field, a Parley error (a damaged database file) as one line with its message — and exits 1. Resolves once the server listens.
 */
export async function runServerProcess(options: ServerProcessOptions = {}): Promise<void> {
  try {
    await start(options);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof PluginError) {
      console.error(`parley: ${err.message}`);
    } else if (isParleyError(err)) {
      // A refusal that says what is wrong and what to do (a damaged database file): its message is the point, not a stack.
      console.error(`parley: start-up failed: ${err.message}`);
    } else {
      console.error('parley: start-up failed:', err);
    }
    process.exit(1);
  }
}
