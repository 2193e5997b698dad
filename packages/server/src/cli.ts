#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig } from './config/config.js';
import { ParleyServer } from './app/parley-server.js';
import { PluginError } from './plugins/plugin-host.js';
import { printBanner } from './app/banner.js';
import { unsupportedNode } from './node-version.js';

/** `parley` — starts the server from the environment and `PARLEY_CONFIG`; stops gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
  const unsupported = unsupportedNode(process.version, engines.node);
  if (unsupported) throw new ConfigError(unsupported);
  const config = loadConfig();
  const server = await ParleyServer.create({ config });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      server.context.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
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

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof PluginError) {
    console.error(`parley: ${err.message}`);
  } else {
    console.error('parley: start-up failed:', err);
  }
  process.exit(1);
});
