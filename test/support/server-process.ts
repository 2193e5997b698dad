/**
 * Runs the real Parley server in its own process, for tests that kill it (SIGKILL) and start it again
 * on the same data directory, or that run beside each other on one shared store. Storage is SQLite in
 * that directory unless PARLEY_TEST_STORAGE names another; plugins are the sandbox channel and both
 * webhook formats.
 *
 * Environment:
 * - PARLEY_TEST_DATA_DIR (required): data directory, reused across runs.
 * - PARLEY_TEST_PORT: port on 127.0.0.1 (default 0: any free port).
 * - PARLEY_TEST_CONFIG: JSON merged over the config (for example `{"webhooks": {...}}`).
 * - PARLEY_TEST_STORAGE: JSON plugin entry of the storage (for example `{"package": "@parley/storage-redis", "options": {...}}`).
 * - PARLEY_TEST_SANDBOX: JSON merged over the sandbox channel's options (for example `{"latencyMs": 200}`).
 * - PARLEY_TEST_PLUGINS: JSON array of plugin entries appended to the list (event sinks).
 *
 * Prints one JSON line on stdout once listening: `{"url": "http://127.0.0.1:<port>"}`. Logs (level
 * warn unless the config says otherwise) go to stderr. SIGTERM closes the server gracefully.
 */
import { fileURLToPath } from 'node:url';
import type { Logger } from '@parley/core';
import { createLogger, type ParleyConfig, type PluginEntry } from '@parley/server';
import { startTestHost, TEST_HOST_ADMIN_TOKEN } from '@parley/testkit/host';

/** Admin token of servers started by this script (tests only): the test host's. */
export const SERVER_PROCESS_ADMIN_TOKEN = TEST_HOST_ADMIN_TOKEN;

async function main(): Promise<void> {
  const dataDir = process.env.PARLEY_TEST_DATA_DIR;
  if (!dataDir) throw new Error('PARLEY_TEST_DATA_DIR is required');
  const extra = JSON.parse(process.env.PARLEY_TEST_CONFIG ?? '{}') as Partial<ParleyConfig>;
  const host = await startTestHost({
    plugins: [
      JSON.parse(process.env.PARLEY_TEST_STORAGE ?? 'null') as { package: string; options?: Record<string, unknown> } | null ?? { package: '@parley/storage-sqlite' },
      { package: '@parley/channel-sandbox', options: { autoScanMs: 0, ...JSON.parse(process.env.PARLEY_TEST_SANDBOX ?? '{}') } },
      { package: '@parley/webhook-native' },
      { package: '@parley/webhook-meta' },
      ...(JSON.parse(process.env.PARLEY_TEST_PLUGINS ?? '[]') as PluginEntry[]),
    ],
    // Given, so the host keeps it: the next process starts on the same data.
    dataDir,
    config: { port: Number(process.env.PARLEY_TEST_PORT ?? 0), defaultChannel: 'sandbox', ...extra },
    logger: createLogger({ level: extra.logLevel ?? 'warn', destination: process.stderr }) as unknown as Logger,
  });
  process.once('SIGTERM', () => {
    host.stop().then(() => process.exit(0), () => process.exit(1));
  });
  process.stdout.write(`${JSON.stringify({ url: host.url })}\n`);
}

// Started as a script (not imported for its constant).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
